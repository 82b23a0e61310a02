"""`cuzk setup`: fresh Groth16 keys for a circuit, as bellperson .params/.vk or a snarkjs .zkey."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cuzk.errors import CuzkError

from .files import ensure_parent, input_file, output_dir, output_file

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

DESCRIPTION = """\
Generate random Groth16 keys for a circuit, in one of two layouts:

  --params P --vk V     bellperson's .params/.vk (BLS12-381 only: that layout has no BN254
                        form), for a circom .r1cs or a compiled circuit (.pce)
  --kind K --sector-size S --params-dir D
                        Filecoin's circuit K (window-post, winning-post, porep: StackedDRG C2,
                        snap: SnapDeals' EmptySectorUpdate) for sectors of size S: .params/.vk in
                        bellperson's layout under the file names rust-fil-proofs gives them
                        (v28-proof-of-spacetime-fallback-..., v28-stacked-proof-of-replication-...,
                        v28-empty-sector-update-...), where a daemon whose
                        circuits.filecoin_params is D finds them. Test keys: the network's are
                        the ceremony's (paramfetch), and proofs made with these do not verify there
  --zkey Z              a snarkjs Groth16 .zkey for a circom .r1cs (BN254 or BLS12-381, as
                        the .r1cs file's prime says), with its verification_key.json;
                        snarkjs (groth16 prove, zkey export verificationkey), rapidsnark and
                        `cuzk prove --zkey` prove with it

This is a SINGLE-PARTY setup, for tests, benchmarks and private use, not a ceremony: the
toxic waste (tau, alpha, beta, gamma, delta) is drawn from the OS CSPRNG and dropped when the
command exits, but nobody else can check that, so whoever ran it could forge proofs. Keys
that others must trust need a multi-party ceremony (snarkjs powersoftau + zkey contribute).
"""


def register(sub) -> None:
    p = sub.add_parser("setup", help="generate single-party Groth16 keys (.params/.vk or a snarkjs .zkey)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--r1cs", type=input_file, help="circom .r1cs file")
    src.add_argument("--pce", type=input_file, help="compiled circuit (.pce); bellperson layout only")
    src.add_argument("--kind", choices=["window-post", "winning-post", "porep", "snap"],
                     help="a Filecoin circuit (with --sector-size and --params-dir)")
    p.add_argument("--sector-size", help="with --kind: 2KiB, 8MiB, 512MiB, 32GiB or 64GiB")
    p.add_argument("--params-dir", type=output_dir, help="with --kind: directory for the .params/.vk/.meta files")
    p.add_argument("--params", type=output_file, help="output bellperson .params file (with --vk)")
    p.add_argument("--vk", type=output_file, help="output bellperson .vk file (with --params)")
    p.add_argument("--zkey", type=output_file, help="output snarkjs .zkey file (with --r1cs)")
    p.add_argument("--vk-json", type=output_file, help="output snarkjs verification_key.json for the --zkey "
                   "(default: the .zkey path with its suffix replaced by .vk.json)")
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    p.set_defaults(func=run, validate=_check_outputs)


def load_circuit(r1cs: str | None, pce: str | None):
    """A CompiledCircuit from either source (errors are the project's own)."""
    try:
        if r1cs:
            from cuzk.formats.circom_r1cs import read_r1cs

            return read_r1cs(r1cs).circuit
        from cuzk.r1cs.compiled import CompiledCircuit

        return CompiledCircuit.load(pce)
    except OSError as exc:
        raise CuzkError(f"{r1cs or pce}: {exc.strerror}") from None


def default_vk_json(zkey: str) -> Path:
    return Path(zkey).with_suffix(".vk.json")


def _check_outputs(args) -> None:
    if args.kind:
        if not (args.sector_size and args.params_dir) or args.params or args.vk or args.zkey:
            raise CuzkError("setup: --kind takes --sector-size and --params-dir (the file names are Filecoin's)")
        return
    if args.sector_size or args.params_dir:
        raise CuzkError("setup: --sector-size and --params-dir go with --kind")
    if args.zkey:
        if args.params or args.vk:
            raise CuzkError("setup: give either --zkey or --params/--vk (each makes its own, independent key)")
        if not args.r1cs:
            raise CuzkError("setup: --zkey needs a circom --r1cs (a snarkjs witness follows circom's wire order)")
    elif args.vk_json:
        raise CuzkError("setup: --vk-json goes with --zkey")
    elif not (args.params and args.vk):
        raise CuzkError("setup: give --zkey OUT.zkey, or both --params and --vk")


def run(args) -> int:
    _check_outputs(args)
    # the layers below compile numba kernels on import: loaded only once a command runs
    from cuzk.backend import get_backend

    if args.kind:
        return _run_filecoin(args, get_backend(args.backend))
    backend = get_backend(args.backend)
    if args.r1cs and backend.name == "cpu":
        _precompile(args.r1cs)
    circuit = load_circuit(args.r1cs, args.pce)
    t0 = time.perf_counter()
    _announce(circuit)
    if args.zkey:
        vk_json = args.vk_json or default_vk_json(args.zkey)
        ensure_parent(vk_json)
        written, n = _write_zkey(circuit, backend, args.zkey, vk_json)
    else:
        written, n = _write_bellperson(circuit, backend, args.params, args.vk)
    _wrote(written, n, t0)
    return 0


def _precompile(r1cs: str) -> None:
    """On a fresh machine, the kernels a setup of this curve and size calls, compiled first on every core
    (first_run.py; kernel_lists/setup-*.txt) rather than one at a time on first call."""
    from cuzk.formats.circom_r1cs import r1cs_shape

    from . import first_run

    shape = r1cs_shape(r1cs)
    if shape:
        first_run.before(f"setup-{shape[0]}-cpu", "cuzk setup", shape[1])


def _announce(circuit) -> None:
    print(f"setup: {circuit.curve}, {circuit.num_constraints:,} constraints, {circuit.num_inputs} inputs, "
          f"{circuit.num_aux:,} aux variables (single-party: for tests and private use)", file=sys.stderr)


def _wrote(written, n: int, t0: float) -> None:
    print(f"wrote {' and '.join(map(str, written))} (domain 2^{n.bit_length() - 1}) "
          f"in {time.perf_counter() - t0:.1f} s", file=sys.stderr)


def _run_filecoin(args, backend) -> int:
    """Filecoin's circuit under its Filecoin file names (the engine's filecoin_test, as `cuzk demo` uses it)."""
    from cuzk.circuits.filecoin import kinds as provable
    from cuzk.engine.params import filecoin_test

    cfg = _filecoin_config(args.kind, args.sector_size)  # a bad size fails before any work
    print(f"setup: building {provable.circuit_id(cfg)} (cached after the first time)", file=sys.stderr)
    _announce(filecoin_test.circuit(cfg))
    t0 = time.perf_counter()
    try:
        params, vk, n = filecoin_test.write(cfg, args.params_dir, backend=backend)
    except OSError as exc:
        raise CuzkError(f"--params-dir {args.params_dir}: {exc.strerror or exc}") from None
    _wrote((params, vk), n, t0)
    return 0


def _filecoin_config(kind: str, sector_size: str | None):
    """The config of a --kind/--sector-size pair, as `cuzk circuit info --kind` reads it (CuzkError naming the sizes)."""
    from . import post_circuit, sector_circuit

    if kind in ("porep", "snap"):
        return sector_circuit.config_of(kind, sector_size)
    return post_circuit.config_of(kind, sector_size)


def _write_bellperson(circuit, backend, params: str, vk: str):
    from cuzk.formats import bellperson
    from cuzk.groth16 import setup

    if circuit.curve != "bls12_381":
        raise CuzkError(f"bellperson parameters are BLS12-381 only; this circuit is over {circuit.curve} "
                        "(use --zkey for a snarkjs key)")
    pk = setup.generate(circuit, backend=backend)
    bellperson.write_params(params, pk)
    bellperson.write_vk(vk, pk.vk)
    return (params, vk), pk.domain_size


def _write_zkey(circuit, backend, zkey: str, vk_json: Path):
    from cuzk.formats import snarkjs_json
    from cuzk.formats.zkey_setup import generate_zkey
    from cuzk.formats.zkey_write import write_zkey

    key = generate_zkey(circuit, backend=backend)
    write_zkey(zkey, key)
    snarkjs_json.write_vk(vk_json, key.verifying_key())
    return (zkey, vk_json), key.domain_size
