"""`cuzk prove --daemon ADDR` (or CUZK_DAEMON=ADDR): the proof made by a running daemon that keeps the key.

A one-shot `cuzk prove` spends most of a small proof starting up: importing numba,
loading its kernels from the cache, reading and decoding the key. A daemon keeps
all of that, so this process only sends the witness file's bytes and writes what
comes back: it imports grpc and the service's messages, never numba, numpy or the
prover (`python -X importtime`), and decodes nothing but the answer.

The circuit is named by its files (cuzk.key_ids): the key, and the .r1cs each
witness is checked against (--r1cs or the one beside the key, as one-shot; none
with --no-check). The daemon registers it on first use and keeps its key decoded
(cuzk/engine/catalog/by_path.py), so the first proof through a daemon pays for
reading the key and the next ones do not. The daemon reads those files itself:
it must run on this machine, reached through its unix socket (`cuzk daemon`
listens on one by default); a TCP address is refused.

A daemon started a moment ago (`cuzk daemon & cuzk prove --daemon ...`) is waited for: until
its socket accepts a connection, at most WAIT_S seconds (it listens 0.5-1 s after it starts),
then the proof is asked for; past that the command gives up with one line (exit 2).

Exit status and files as one-shot: 0 with proof.json and public.json written, 1
when the witness does not satisfy the circuit (nothing written), 2 for bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from cuzk.errors import CuzkError

MAX_MESSAGE_BYTES = (1 << 31) - 1  # a witness of 2^25 wires is 1 GiB: let it through
EXIT_UNSATISFIED = 1
COMPLETED = 1  # AwaitProofResponse.Status
WAIT_S = 5.0  # for a daemon that is starting: bounded, so a wrong address costs seconds, not a hang
POLL_S = 0.05


def address_of(text: str):
    from cuzk.server.address import AddressError, parse

    try:
        addr = parse(text)
    except AddressError as exc:
        raise CuzkError(f"--daemon: {exc}") from None
    if addr.kind != "unix":
        raise CuzkError(f"--daemon {text}: give the daemon's unix socket (unix:PATH): the daemon reads the key "
                        "and circuit files itself, so it must run on this machine")
    return addr


def run(args: argparse.Namespace, address: str, r1cs: Path | None) -> int:
    """Prove `args`' files through the daemon at `address`; `r1cs`: the circuit to check the witness
    against (None: unchecked)."""
    from cuzk import key_ids

    t0 = time.perf_counter()
    addr = address_of(address)
    circuit_id = key_ids.make(os.path.abspath(args.zkey), os.path.abspath(r1cs) if r1cs else None)
    witness = _read(args.wtns)
    res = _prove(addr, circuit_id, witness)
    if res.status != COMPLETED:
        message = res.error_message or f"the daemon answered status {res.status}"
        if "does not satisfy the circuit" in message:
            print(f"cuzk: error: {args.wtns}: {message.split(': ', 1)[-1]} (--no-check proves it anyway)",
                  file=sys.stderr)
            return EXIT_UNSATISFIED
        raise CuzkError(f"the daemon at {address} did not prove it: {message}")
    _write_proof(args.proof, res.proof)
    _write_public(args.public, [int.from_bytes(v, "little") for v in res.public_inputs[0].values])
    if not args.quiet:
        total = (time.perf_counter() - t0) * 1e3
        print(f"cuzk prove: {total:.0f} ms (through the daemon at {address}: queue {res.queue_wait_ms}, "
              f"synthesis {res.synthesis_ms}, prove {res.gpu_compute_ms}, in the daemon {res.total_ms})",
              file=sys.stderr)
    return 0


def _read(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise CuzkError(f"{path}: {exc.strerror or exc}") from None


def _await_listening(addr, wait_s: float = WAIT_S) -> None:
    """Return once the daemon's unix socket accepts a connection; CuzkError after `wait_s` seconds.
    A starting daemon has no socket file yet, or one nobody accepts on (a stale file of an earlier
    run is replaced when the new daemon binds): both are retried until the deadline."""
    import socket

    end = time.monotonic() + wait_s
    while True:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            try:
                s.connect(addr.path)
                return
            except (FileNotFoundError, ConnectionRefusedError):
                pass
            except OSError as exc:  # a path that cannot be a socket: no use waiting
                raise CuzkError(f"--daemon {addr.path}: {exc.strerror or exc}") from None
        if time.monotonic() >= end:
            raise CuzkError(f"--daemon: no cuzk daemon answers at {addr} (waited {wait_s:.0f} s; start one with "
                            "`cuzk daemon`, or prove without --daemon)")
        time.sleep(POLL_S)


def _prove(addr, circuit_id: str, witness: bytes):
    import grpc

    from cuzk.proto import proving_pb2 as pb
    from cuzk.proto import proving_pb2_grpc as pbg

    _await_listening(addr)
    opts = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES), ("grpc.max_send_message_length", MAX_MESSAGE_BYTES)]
    with grpc.insecure_channel(addr.target, options=opts) as channel:
        try:
            return pbg.ProvingEngineStub(channel).Prove(
                pb.ProveRequest(submit={"circuit_id": circuit_id, "vanilla_proof": witness})).result
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.UNAVAILABLE:
                raise CuzkError(f"--daemon: no cuzk daemon answers at {addr} (start one with `cuzk daemon`, "
                                "or prove without --daemon)") from None
            raise CuzkError(f"the daemon at {addr} refused the request: {exc.details()}") from None


def _write_proof(path: str, data: bytes) -> None:
    from cuzk.formats import proof_json

    if len(data) == proof_json.BN254_SIZE:
        proof_json.write(path, proof_json.bn254_proof_json(data))
        return
    from cuzk.formats import proof_bytes, snarkjs_json  # BLS12-381's compressed points: the full decoder

    snarkjs_json.write_proof(path, proof_bytes.decode("bls12_381", data))


def _write_public(path: str, values: list[int]) -> None:
    from cuzk.formats import proof_json

    proof_json.write(path, [str(v) for v in values])
