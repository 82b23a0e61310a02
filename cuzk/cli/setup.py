"""`cuzk setup`: Groth16 parameters for a circuit, in bellperson's layout."""

from __future__ import annotations

import sys
import time

from cuzk.errors import CuzkError


def register(sub) -> None:
    p = sub.add_parser("setup", help="generate Groth16 parameters (.params, .vk) for a circuit",
                       description="Generate random Groth16 parameters (from the OS CSPRNG) for a circom .r1cs "
                       "or a compiled circuit (.pce) and write them in bellperson's .params/.vk layout "
                       "(BLS12-381 only: that layout has no BN254 form).")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--r1cs", help="circom .r1cs file")
    src.add_argument("--pce", help="compiled circuit (.pce)")
    p.add_argument("--params", required=True, help="output .params file")
    p.add_argument("--vk", required=True, help="output .vk file")
    p.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"])
    p.set_defaults(func=run)


def load_circuit(r1cs: str | None, pce: str | None):
    """A CompiledCircuit from either source (errors are the project's own)."""
    try:
        if r1cs:
            from cuzk.r1cs.circom import read_r1cs

            return read_r1cs(r1cs).circuit
        from cuzk.r1cs.compiled import CompiledCircuit

        return CompiledCircuit.load(pce)
    except OSError as exc:
        raise CuzkError(f"{r1cs or pce}: {exc.strerror}") from None


def run(args) -> int:
    from cuzk.backend import get_backend
    from cuzk.formats import bellperson
    from cuzk.groth16 import setup

    circuit = load_circuit(args.r1cs, args.pce)
    if circuit.curve != "bls12_381":
        raise CuzkError(f"bellperson parameters are BLS12-381 only; this circuit is over {circuit.curve}")
    t0 = time.perf_counter()
    print(f"setup: {circuit.num_constraints:,} constraints, {circuit.num_inputs} inputs, "
          f"{circuit.num_aux:,} aux variables", file=sys.stderr)
    pk = setup.generate(circuit, backend=get_backend(args.backend))
    bellperson.write_params(args.params, pk)
    bellperson.write_vk(args.vk, pk.vk)
    print(f"wrote {args.params} and {args.vk} (domain 2^{pk.domain_size.bit_length() - 1}) "
          f"in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0
