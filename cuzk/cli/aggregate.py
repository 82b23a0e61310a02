"""`cuzk aggregate-srs`, `cuzk aggregate`, `cuzk verify-aggregate`: SnarkPack.

    cuzk aggregate-srs --curve bls12_381 --max-proofs 8192 --out agg.srs
    cuzk aggregate --srs agg.srs --vk vk.json --proof p1.json --public pub1.json [...] --out agg.bin
    cuzk verify-aggregate --srs agg.srs --vk vk.json --public pub1.json [...] --aggregate agg.bin
    cuzk aggregate --addr unix:PATH --job ID [--job ID ...] --srs agg.srs --out agg.bin   # by a daemon
    cuzk verify-aggregate --addr unix:PATH --circuit ID --srs agg.srs --public pub1.json [...] --aggregate agg.bin

verify-aggregate prints OK (exit 0), INVALID and why (exit 1: a wrong or
malformed aggregate, inputs that do not match it), or one line on stderr
(exit 2: a missing or malformed key, SRS or public-input file), like
`cuzk verify`. Heavy modules are imported inside the handlers.
"""

from __future__ import annotations

import os
import sys
import time

from cuzk.errors import CuzkError, FormatError, ValidationError

from .files import input_file, output_dir, output_file

# The layers below are imported inside the commands: a command loads only what it runs (start-up
# latency, cuzk/cli/main.py).

DEFAULT_DOMAIN = "cuzk-snarkpack-v1"
CURVES = ("bls12_381", "bn254")


def register(subparsers) -> None:
    s = subparsers.add_parser(
        "aggregate-srs", help="generate a SnarkPack reference string (single party: NOT a ceremony)",
        description="Generate the reference string SnarkPack aggregation needs: powers g^(a^i), g^(b^i), h^(a^i), "
        "h^(b^i) for up to --max-proofs proofs (rounded up to a power of two). WARNING: this is NOT a trusted-setup "
        "ceremony. One process draws the secrets a and b, and anyone who learned them could forge aggregates. Use it "
        "for tests and private deployments only; a public deployment must build its SRS from two independent "
        "powers-of-tau ceremonies.")
    s.add_argument("--curve", required=True, choices=CURVES, help="curve of the proofs to aggregate")
    s.add_argument("--max-proofs", required=True, type=int, metavar="N", help="largest number of proofs per aggregate")
    s.add_argument("--out", required=True, type=output_file, metavar="SRS", help="file to write")
    s.add_argument("--backend", default="cpu", choices=["auto", "cpu", "cuda"], help="compute backend (default cpu)")
    s.set_defaults(func=cmd_srs)

    a = subparsers.add_parser(
        "aggregate", help="aggregate Groth16 proofs of one circuit into one SnarkPack proof",
        description="Aggregate n Groth16 proofs of one circuit (snarkjs proof.json, or bellperson/cuzk proof bytes) "
        "with their public inputs (snarkjs public.json), given in order as --proof/--public pairs. n is padded to a "
        "power of two by repeating the last proof. The aggregate is bound to the key, the public inputs, their order "
        "and the domain separator.")
    a.add_argument("--srs", required=True, metavar="SRS", help="reference string from `cuzk aggregate-srs`")
    a.add_argument("--vk", type=input_file, metavar="VK",
                   help="verification key: snarkjs .json or bellperson .vk (required offline)")
    a.add_argument("--proof", action="append", type=input_file, metavar="PROOF",
                   help="a proof: snarkjs proof.json, or a file of proof bytes (192 B BLS12-381, 256 B BN254)")
    a.add_argument("--public", action="append", type=input_file, metavar="PUB.json",
                   help="public signals of that proof")
    a.add_argument("--out", required=True, type=output_file, metavar="AGG", help="aggregate proof to write")
    a.add_argument("--domain", default=DEFAULT_DOMAIN, help=f"transcript domain separator (default {DEFAULT_DOMAIN})")
    a.add_argument("--backend", default="auto", choices=["auto", "cpu", "cuda"],
                   help="compute backend for the pairing products and MSMs (default auto: the GPU when there is one; "
                   "8192 BLS12-381 proofs take ~3 s on an H200 against ~27 s on its 16 cores)")
    _daemon_args(a)
    a.add_argument("--job", action="append", metavar="ID",
                   help="with --addr: a completed job whose proofs (every partition's, in order) to aggregate")
    a.add_argument("--write-publics", type=output_dir, metavar="DIR",
                   help="with --addr: write the aggregated proofs' public inputs as DIR/public-<i>.json, in order")
    a.set_defaults(func=cmd_aggregate)

    v = subparsers.add_parser(
        "verify-aggregate", help="verify a SnarkPack aggregate proof",
        description="Verify an aggregate made by `cuzk aggregate` against the key and every proof's public inputs "
        "(in the aggregation order). Prints OK and exits 0, prints INVALID and the reason and exits 1, or exits 2 "
        "with one line on stderr for missing or malformed files.")
    v.add_argument("--srs", required=True, metavar="SRS", help="reference string the aggregate was made with")
    v.add_argument("--vk", type=input_file, metavar="VK",
                   help="verification key: snarkjs .json or bellperson .vk (required offline)")
    v.add_argument("--public", required=True, action="append", type=input_file, metavar="PUB.json",
                   help="public signals, in order")
    v.add_argument("--aggregate", required=True, type=input_file, metavar="AGG", help="aggregate proof file")
    v.add_argument("--domain", default=DEFAULT_DOMAIN, help=f"transcript domain separator (default {DEFAULT_DOMAIN})")
    _daemon_args(v)
    v.add_argument("--circuit", metavar="ID", help="with --addr: the circuit whose verifying key the daemon uses")
    v.set_defaults(func=cmd_verify)


def _daemon_args(p) -> None:
    """--addr turns the command into a request to a daemon (Aggregate / VerifyAggregate RPCs)."""
    p.add_argument("--addr", metavar="ADDR", help="run it on a daemon: unix:PATH or host:port (default: offline)")
    p.add_argument("--token", default=os.environ.get("CUZK_TOKEN", ""),
                   help="with --addr: the daemon's bearer token (default $CUZK_TOKEN; required by TCP daemons)")
    p.add_argument("--tls-ca", metavar="PEM", default=os.environ.get("CUZK_TLS_CA", ""),
                   help="with --addr: connect with TLS, trusting this CA (default $CUZK_TLS_CA)")
    p.add_argument("--upload-srs", action="store_true",
                   help="with --addr: send the SRS file's bytes (default: send its path, for a daemon on this host)")


def register_bench(bsub) -> None:
    """`cuzk bench aggregate` (called from cuzk.cli.bench)."""
    b = bsub.add_parser("aggregate", help="SnarkPack aggregation and verification vs batch verification",
                        description="Aggregate n random valid proofs of a tiny circuit, verify the aggregate, and "
                        "batch-verify the same proofs; prints times and sizes per n.")
    b.add_argument("--curve", default="bls12_381", choices=CURVES)
    b.add_argument("--sizes", default="64,128,256,512,1024,2048,4096,8192",
                   help="comma-separated proof counts (default 64..8192)")
    b.add_argument("--backend", default="cpu", choices=["auto", "cpu", "cuda"], help="compute backend (default cpu)")
    b.add_argument("--repeat", type=int, default=3, help="verification repetitions (median reported)")
    b.add_argument("--verify-threads", type=int, metavar="N",
                   help="numba threads for verification and batch verification (default: all)")
    b.add_argument("--json", type=output_file, metavar="FILE", help="write the records as JSON")
    b.set_defaults(func=cmd_bench)


def _usage(msg: str) -> int:
    print(f"cuzk: error: {msg}", file=sys.stderr)
    return 2


def _invalid(reason: str) -> int:
    print(f"INVALID: {reason}")
    return 1


def cmd_srs(args) -> int:
    if args.max_proofs < 1:
        return _usage("--max-proofs must be at least 1")
    from cuzk.aggregate import srs
    from cuzk.backend import get_backend

    t = time.perf_counter()
    s = srs.generate(args.curve, args.max_proofs, backend=get_backend(args.backend))
    srs.write(s, args.out)
    print(f"wrote {args.out}: {args.curve} SRS for up to {s.max_proofs} proofs ({len(s.g_alpha)} powers) in "
          f"{time.perf_counter() - t:.1f} s. Single-party setup: for tests and private deployments only.")
    return 0


def _read_vk(path):
    if str(path).endswith(".json"):
        from cuzk.formats.snarkjs_json import read_vk

        return read_vk(path)
    from cuzk.formats.bellperson import read_vk

    return read_vk(path)


def _read_publics(paths, curve):
    import numpy as np

    from cuzk.formats.snarkjs_json import read_public

    rows = [read_public(p, curve) for p in paths]
    k = len(rows[0])
    for p, row in zip(paths, rows):
        if len(row) != k:
            raise FormatError(f"{p}: {len(row)} public inputs, but {paths[0]} has {k}")
    canon = np.stack([curve.fr.canonical_from_ints(row) if row else np.zeros((0, 4), np.uint64) for row in rows])
    return canon.reshape(len(rows), k, 4)


def _read_proofs(paths, curve):
    """Proof arrays A, B, C from snarkjs JSON or proof-byte files (several proofs per byte file allowed)."""
    import numpy as np

    from cuzk.curve.subgroup import validate_points
    from cuzk.formats import proof_bytes
    from cuzk.formats.snarkjs_json import read_proof

    proofs = []
    for p in paths:
        if str(p).endswith(".json"):
            pr = read_proof(p)
            if pr.curve is not curve:
                raise ValidationError(f"{p}: the proof is over {pr.curve.name}, the key over {curve.name}")
            proofs.append(pr)
            continue
        try:
            data = open(p, "rb").read()
        except OSError as exc:
            raise FormatError(f"{p}: cannot read: {exc.strerror}") from None
        for part in proof_bytes.split(curve.name, data):
            proofs.append(proof_bytes.decode(curve.name, part))
    a = np.stack([q.a for q in proofs])
    b = np.stack([q.b for q in proofs])
    c = np.stack([q.c for q in proofs])
    validate_points(curve.g1, a, what="proof A")
    validate_points(curve.g2, b, what="proof B")
    validate_points(curve.g1, c, what="proof C")
    return a, b, c


def cmd_aggregate(args) -> int:
    if args.addr:
        return _daemon_aggregate(args)
    if args.job or args.write_publics:
        return _usage("--job and --write-publics need --addr (a daemon's completed jobs)")
    if not (args.vk and args.proof and args.public):
        return _usage("give --vk and --proof/--public pairs (or --addr and --job to aggregate a daemon's jobs)")
    from cuzk.aggregate import proof_format, prover, srs, transcript
    from cuzk.backend import get_backend

    vk = _read_vk(args.vk)
    curve = vk.curve
    a, b, c = _read_proofs(args.proof, curve)
    publics = _read_publics(args.public, curve)
    if len(a) != len(publics):
        return _usage(f"{len(a)} proofs but {len(publics)} --public files (one per proof, in order)")
    if publics.shape[1] != vk.num_public:
        return _usage(f"the key expects {vk.num_public} public inputs per proof, the files hold {publics.shape[1]}")
    n = srs.padded_count(len(a))
    t = time.perf_counter()
    pk = srs.read_prover_key(args.srs, curve.name, n)
    t_srs = time.perf_counter() - t
    include = transcript.statement_digest(vk, publics, len(a), args.domain.encode())
    timings: dict = {}
    t = time.perf_counter()
    agg = prover.aggregate(pk, a, b, c, include, get_backend(args.backend), timings)
    data = proof_format.to_bytes(agg)
    with open(args.out, "wb") as fh:
        fh.write(data)
    print(f"wrote {args.out}: {len(a)} proofs (padded to {n}), {len(data)} bytes, aggregated in "
          f"{time.perf_counter() - t:.2f} s (SRS read {t_srs:.2f} s)")
    return 0


def cmd_verify(args) -> int:
    if args.addr:
        return _daemon_verify(args)
    if not args.vk or args.circuit:
        return _usage("give --vk (or --addr and --circuit to verify on a daemon)")
    from cuzk.aggregate import proof_format, srs, transcript, verifier
    from cuzk.backend import get_backend
    from cuzk.groth16.verifier import PreparedVerifyingKey

    vk = _read_vk(args.vk)
    curve = vk.curve
    publics = _read_publics(args.public, curve)
    vkey = srs.read_verifier_key(args.srs, curve.name)
    pvk = PreparedVerifyingKey(vk)
    try:
        data = open(args.aggregate, "rb").read()
    except OSError as exc:
        return _usage(f"{args.aggregate}: cannot read: {exc.strerror}")
    try:
        agg = proof_format.from_bytes(curve, data)
    except FormatError as exc:
        return _invalid(f"malformed aggregate: {exc}")
    if publics.shape[1] != vk.num_public:
        return _invalid(f"the key expects {vk.num_public} public inputs per proof, the files hold {publics.shape[1]}")
    include = transcript.statement_digest(vk, publics, len(publics), args.domain.encode())
    pm = curve.fr.to_mont(publics.reshape(-1, 4)).reshape(publics.shape)
    try:
        ok, why = verifier.verify(vkey, pvk, pm, agg, include, get_backend("cpu"))
    except ValidationError as exc:
        return _invalid(str(exc))
    if not ok:
        return _invalid(why)
    print("OK")
    return 0


# ---- on a daemon ------------------------------------------------------------------------------


def _client(args):
    from cuzk.server.client import ProvingClient

    return ProvingClient(args.addr, token=args.token, tls_ca=args.tls_ca)


def _srs_fields(args) -> dict:
    if not args.upload_srs:
        return {"srs_path": os.path.abspath(args.srs)}
    try:
        return {"srs_data": open(args.srs, "rb").read()}
    except OSError as exc:
        raise FormatError(f"{args.srs}: cannot read: {exc.strerror}") from None


def _rpc_error(args, exc) -> int:
    return _usage(f"{args.addr}: {exc.code().name}: {exc.details()}")


def _phases(r) -> str:
    return ", ".join(f"{p.phase} {p.ms:.0f}" for p in r.phases)


def _daemon_aggregate(args) -> int:
    import grpc

    from cuzk.formats.snarkjs_json import write_public

    if args.proof or args.public or args.vk:
        return _usage("with --addr, name the daemon's completed jobs with --job (not --vk/--proof/--public)")
    if not args.job:
        return _usage("with --addr, give at least one --job")
    srs_fields = _srs_fields(args)
    try:
        with _client(args) as c:
            r = c.aggregate(job_ids=args.job, domain=args.domain, **srs_fields)
    except grpc.RpcError as exc:
        return _rpc_error(args, exc)
    with open(args.out, "wb") as fh:
        fh.write(r.aggregate)
    if args.write_publics:
        os.makedirs(args.write_publics, exist_ok=True)
        for i, p in enumerate(r.public_inputs):
            write_public(os.path.join(args.write_publics, f"public-{i}.json"),
                         [int.from_bytes(v, "little") for v in p.values])
    print(f"wrote {args.out}: {r.num_proofs} proofs of {r.circuit_id} (padded to {r.padded_proofs}), "
          f"{len(r.aggregate)} bytes, {r.total_ms} ms in the daemon ({_phases(r)} ms)")
    return 0


def _daemon_verify(args) -> int:
    import grpc

    from cuzk.formats.snarkjs_json import read_public
    from cuzk.server.convert import vk_from_proto

    if args.vk or not args.circuit:
        return _usage("with --addr, give --circuit (the daemon's key; not --vk)")
    try:
        data = open(args.aggregate, "rb").read()
    except OSError as exc:
        return _usage(f"{args.aggregate}: cannot read: {exc.strerror}")
    srs_fields = _srs_fields(args)
    try:
        with _client(args) as c:
            curve = vk_from_proto(c.verifying_key(args.circuit)).curve
            rows = [[int(x) for x in read_public(p, curve)] for p in args.public]
            r = c.verify_aggregate(data, rows, circuit_id=args.circuit, domain=args.domain, **srs_fields)
    except grpc.RpcError as exc:
        return _rpc_error(args, exc)
    if not r.valid:
        return _invalid(r.reason)
    print(f"OK ({r.total_ms} ms in the daemon: {_phases(r)} ms)")
    return 0


def cmd_bench(args) -> int:
    from cuzk.bench import aggregate as bench

    try:
        sizes = [int(s) for s in args.sizes.split(",") if s]
    except ValueError:
        raise CuzkError(f"--sizes: expected comma-separated integers, got {args.sizes!r}") from None
    if not sizes or min(sizes) < 1:
        raise CuzkError("--sizes: give at least one count >= 1")
    return bench.run(args.curve, sizes, args.backend, args.repeat, args.json, verify_threads=args.verify_threads)
