"""`cuzk filecoin verify`: Filecoin proofs checked from public data alone.

Against proofs rust-fil-proofs made (../shared/fixtures/filecoin/rust-fil-proofs-2KiB: a 2 KiB PoRep
and WindowPoSt, their keys in the compressed-point layout, every public datum in public.json): OK on
the data they were made for, INVALID naming the partition when any datum changes or a proof byte
flips. The expected values are the fixture's, never cuzk's. WinningPoSt is checked on a proof cuzk
makes at 2 KiB under TEST parameters (the session's `filecoin_params`) for a Curio-shaped request,
its public data read from the request's own bytes; SnapDeals on a key and proof of a four-input
stand-in circuit made for the statement this test derives from storage-proofs-update's definition
(a real 2 KiB SnapDeals proof takes minutes on the CPU: opt-in, CUZK_LONG_FILECOIN=1). Bad input
exits 2 with one line, never a traceback.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cuzk.cli.main import main

REPO = Path(__file__).resolve().parents[2]
ZERO = "00" * 32
# multicodec table (go-fil-commcid): fil-commitment-unsealed / -sealed and their multihashes
UNSEALED, SEALED, SHA2_TRUNC254, POSEIDON_A2_FC1 = 0xF101, 0xF102, 0x1012, 0xB401
# the empty 32 GiB piece's commitment CID, as published in many Filecoin repositories
EMPTY_32GIB_PIECE_CID = "baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq"


def verify(capsys, *argv) -> tuple[int, str, str]:
    """`cuzk filecoin verify ARGV` through the CLI's entry: (status, stdout, stderr)."""
    rc = main(["filecoin", "verify", *map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


def assert_invalid(result, partitions: int = 1) -> None:
    rc, out, err = result
    assert rc == 1, (out, err)
    assert out.startswith(f"INVALID: partition 0 of {partitions}:") and out.count("\n") == 1, out


def assert_bad_input(result, *words: str) -> None:
    rc, out, err = result
    assert rc == 2, (out, err)
    assert out == "" and "Traceback" not in err, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cuzk: error: "), err
    for w in words:
        assert w in err, (w, err)


def flipped(hex_value: str) -> str:
    """The value with the low bit of its first byte flipped: for commitments (little-endian field
    elements) a different value that is still a field element."""
    b = bytearray(bytes.fromhex(hex_value))
    b[0] ^= 1
    return b.hex()


def cid(codec: int, multihash: int, digest: bytes) -> str:
    """A CIDv1 string in multibase 'b' (RFC 4648 base32, lower case, unpadded), written here from the
    CID and multihash specs."""
    def varint(n: int) -> bytes:
        out = bytearray()
        while True:
            out.append((n & 0x7F) | (0x80 if n >> 7 else 0))
            n >>= 7
            if not n:
                return bytes(out)

    raw = varint(1) + varint(codec) + varint(multihash) + varint(len(digest)) + digest
    return "b" + base64.b32encode(raw).decode().lower().rstrip("=")


def zero_tree_root(levels: int) -> bytes:
    """Tree D's root over all-zero data of 2^levels leaves: SHA-256 with the two top bits cleared."""
    node = bytes(32)
    for _ in range(levels):
        d = bytearray(hashlib.sha256(node + node).digest())
        d[31] &= 0x3F
        node = bytes(d)
    return node


# ---------------------------------------------------------------- rust-fil-proofs' proofs


def case(root: Path, name: str) -> tuple[Path, dict]:
    return root / name, json.loads((root / name / "public.json").read_text())


def porep_argv(d: Path, pub: dict, *, proof=None, vk=None, **over) -> list[str]:
    """The fixture's PoRep as command-line options (its porep id and api version are no registered
    proof's: --sector-size with --porep-id and --api-version)."""
    vals = {"prover-id": pub["prover_id"], "sector-number": pub["sector_number"], "ticket": pub["ticket"],
            "seed": pub["seed"], "comm-r": pub["comm_r"], "comm-d": pub["comm_d"],
            "sector-size": pub["sector_size"], "porep-id": pub["porep_id"], "api-version": pub["api_version"]}
    vals.update({k.replace("_", "-"): v for k, v in over.items()})
    argv = ["porep", "--vk", vk or d / "vk.scale", "--proof", proof or d / "proof.bin"]
    for k, v in vals.items():
        if v is not None:
            argv += [f"--{k}", str(v)]
    return argv


def window_argv(d: Path, pub: dict, *, proof=None, sectors=None, **over) -> list[str]:
    vals = {"randomness": pub["randomness"], "prover-id": pub["prover_id"], "sector-size": pub["sector_size"],
            "api-version": pub["api_version"]}
    vals.update({k.replace("_", "-"): v for k, v in over.items()})
    argv = ["window-post", "--vk", d / "vk.scale", "--proof", proof or d / "proof.bin"]
    for k, v in vals.items():
        if v is not None:
            argv += [f"--{k}", str(v)]
    for s in sectors if sectors is not None else [f"{x['sector_number']}:{x['comm_r']}" for x in pub["sectors"]]:
        argv += ["--sector", s]
    return argv


def cuzk_process(argv) -> subprocess.CompletedProcess:
    env = {**os.environ, "CUZK_PROGRESS": "0"}
    return subprocess.run([sys.executable, "-m", "cuzk", "filecoin", "verify", *map(str, argv)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


def test_rust_fil_proofs_porep_verifies_as_a_command(rust_fil_proofs):
    d, pub = case(rust_fil_proofs, "porep-2KiB")
    done = cuzk_process(porep_argv(d, pub))
    assert (done.returncode, done.stdout, done.stderr) == (0, "OK\n", "")


def test_rust_fil_proofs_window_post_verifies_as_a_command(rust_fil_proofs):
    d, pub = case(rust_fil_proofs, "window-post-2KiB")
    done = cuzk_process(window_argv(d, pub))
    assert (done.returncode, done.stdout, done.stderr) == (0, "OK\n", "")


PROOF_BYTES_FLIPPED = {"A": 47, "B": 143, "C": 191, "A, first byte": 0}  # the last byte of each point, and a flag


def flip_proof(src: Path, dst: Path, at: int) -> Path:
    data = bytearray(src.read_bytes())
    data[at] ^= 1
    dst.write_bytes(bytes(data))
    return dst


def test_porep_each_changed_datum_is_invalid(rust_fil_proofs, capsys):
    d, pub = case(rust_fil_proofs, "porep-2KiB")
    assert verify(capsys, *porep_argv(d, pub))[0] == 0
    # api 1.1.0 builds the same graph as 1.2.0 (the fixture's README): still valid
    assert verify(capsys, *porep_argv(d, pub, api_version="1.1.0"))[:2] == (0, "OK\n")
    changes = {
        "prover_id": flipped(pub["prover_id"]),
        "sector_number": pub["sector_number"] + 1,
        "ticket": flipped(pub["ticket"]),
        "seed": flipped(pub["seed"]),
        "comm_r": flipped(pub["comm_r"]),
        "comm_d": flipped(pub["comm_d"]),
        "porep_id": flipped(pub["porep_id"]),
        "api_version": "1.0.0",  # the legacy DRG parent order: other parents, other public inputs
    }
    for name, value in changes.items():
        assert_invalid(verify(capsys, *porep_argv(d, pub, **{name: value})))


def test_porep_a_flipped_proof_byte_is_invalid(rust_fil_proofs, capsys, tmp_path):
    d, pub = case(rust_fil_proofs, "porep-2KiB")
    for name, at in PROOF_BYTES_FLIPPED.items():
        proof = flip_proof(d / "proof.bin", tmp_path / f"proof-{at}.bin", at)
        assert_invalid(verify(capsys, *porep_argv(d, pub, proof=proof)))


def test_porep_commitments_as_cids(rust_fil_proofs, capsys):
    d, pub = case(rust_fil_proofs, "porep-2KiB")
    comm_r = cid(SEALED, POSEIDON_A2_FC1, bytes.fromhex(pub["comm_r"]))
    comm_d = cid(UNSEALED, SHA2_TRUNC254, bytes.fromhex(pub["comm_d"]))
    assert comm_r.startswith("bagboea4") and comm_d.startswith("baga6ea4")
    assert verify(capsys, *porep_argv(d, pub, comm_r=comm_r, comm_d=comm_d))[:2] == (0, "OK\n")
    # each CID where the other belongs: a codec the option does not take
    assert_bad_input(verify(capsys, *porep_argv(d, pub, comm_r=comm_d)), "--comm-r", "codec")
    assert_bad_input(verify(capsys, *porep_argv(d, pub, comm_d=comm_r)), "--comm-d", "codec")


def test_window_post_each_changed_datum_is_invalid(rust_fil_proofs, capsys, tmp_path):
    d, pub = case(rust_fil_proofs, "window-post-2KiB")
    (sector,) = pub["sectors"]
    n, comm_r = sector["sector_number"], sector["comm_r"]
    assert verify(capsys, *window_argv(d, pub))[:2] == (0, "OK\n")
    assert verify(capsys, *window_argv(d, pub, sector_size=None, api_version=None,
                                       registered_proof="StackedDrgWindow2KiBV1_1"))[:2] == (0, "OK\n")
    assert_invalid(verify(capsys, *window_argv(d, pub, randomness=flipped(pub["randomness"]))))
    assert_invalid(verify(capsys, *window_argv(d, pub, sectors=[f"{n + 1}:{comm_r}"])))
    assert_invalid(verify(capsys, *window_argv(d, pub, sectors=[f"{n}:{flipped(comm_r)}"])))
    # a second sector fills the slot that padding repeated sector 77 into
    assert_invalid(verify(capsys, *window_argv(d, pub, sectors=[f"{n}:{comm_r}", f"{n + 1}:{comm_r}"])))
    for at in PROOF_BYTES_FLIPPED.values():
        assert_invalid(verify(capsys, *window_argv(d, pub, proof=flip_proof(d / "proof.bin", tmp_path / f"p{at}",
                                                                                 at))))
    # rust-fil-proofs derives no public input from the prover id (the leaf challenges take the randomness
    # and sector numbers only): another prover id verifies, as verify_window_post would say
    assert verify(capsys, *window_argv(d, pub, prover_id=flipped(pub["prover_id"])))[:2] == (0, "OK\n")


def test_proof_and_key_that_do_not_fit_are_bad_input(rust_fil_proofs, capsys, tmp_path):
    d, pub = case(rust_fil_proofs, "porep-2KiB")
    proof = (d / "proof.bin").read_bytes()
    short = tmp_path / "short.bin"
    short.write_bytes(proof[:-1])
    assert_bad_input(verify(capsys, *porep_argv(d, pub, proof=short)), "191 bytes", "192")
    double = tmp_path / "double.bin"
    double.write_bytes(proof * 2)
    assert_bad_input(verify(capsys, *porep_argv(d, pub, proof=double)), "384 bytes")
    other = rust_fil_proofs / "window-post-2KiB" / "vk.scale"
    assert_bad_input(verify(capsys, *porep_argv(d, pub, vk=other)), "22 public inputs", "39")
    cut = tmp_path / "cut.vk"
    cut.write_bytes((d / "vk.scale").read_bytes()[:-7])
    assert_bad_input(verify(capsys, *porep_argv(d, pub, vk=cut)), "bellperson .vk")


# ---------------------------------------------------------------- CIDs


def test_a_published_data_commitment_cid():
    """The empty 32 GiB piece's CID holds the root of 2^30 zero leaves; the test's own encoder gives
    the published string, and the command's reader the root."""
    from cuzk.cli.filecoin_verify import commitment

    root = zero_tree_root(30)
    assert cid(UNSEALED, SHA2_TRUNC254, root) == EMPTY_32GIB_PIECE_CID
    assert commitment(EMPTY_32GIB_PIECE_CID, "--comm-d", sealed=False) == root


def test_a_sealed_cid_from_curio(curio_post):
    """Curio's real WindowPoSt: its SealedCID holds the comm_r its vanilla proof carries (bincode:
    sector id u64, then comm_r)."""
    from cuzk.cli.filecoin_verify import commitment

    assert commitment(curio_post.sealed_cid, "--sector", sealed=True) == curio_post.vproof[8:40]


# ---------------------------------------------------------------- bad input, no fixture needed


@pytest.fixture
def files(tmp_path):
    proof, vk = tmp_path / "proof.bin", tmp_path / "key.vk"
    proof.write_bytes(bytes(192))
    vk.write_bytes(bytes(100))
    return proof, vk


PUB = {"prover_id": ZERO, "sector_number": 77, "ticket": "0c" * 32, "seed": "0d" * 32, "comm_r": "4a" + "00" * 31,
       "comm_d": "12" + "00" * 31, "sector_size": "2KiB", "porep_id": ZERO, "api_version": "1.2.0"}

BAD_POREP = {
    "ticket not hex": ({"ticket": "zz" * 32}, ["--ticket", "not hex"]),
    "seed short": ({"seed": "0d" * 31}, ["--seed", "62 digits"]),
    "comm_r not a field element": ({"comm_r": "ff" * 32}, ["comm_r", "field element"]),
    "comm_d all zero": ({"comm_d": ZERO}, ["comm_d", "all zero"]),
    "comm_d a broken CID": ({"comm_d": "baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2"}, ["--comm-d"]),
    "sector number": ({"sector_number": "-1"}, ["--sector-number"]),
    "sector size": ({"sector_size": "3KiB"}, ["--sector-size"]),
    "api version with a registered proof": ({"registered_proof": 5, "sector_size": None, "porep_id": None},
                                            ["--api-version"]),
    "unknown registered proof": ({"registered_proof": 99, "sector_size": None, "porep_id": None, "api_version": None},
                                 ["--registered-proof", "99"]),
    "synthetic PoRep": ({"registered_proof": 10, "sector_size": None, "porep_id": None, "api_version": None},
                        ["interactive"]),
    "neither proof nor size": ({"sector_size": None, "porep_id": None, "api_version": None},
                               ["--registered-proof", "--sector-size"]),
    "size and proof disagree": ({"registered_proof": "StackedDrg8MiBV1_1", "sector_size": "2KiB", "porep_id": None,
                                 "api_version": None}, ["8388608"]),
    "prover id": ({"prover_id": "f0x1"}, ["--prover-id"]),
}


@pytest.mark.parametrize("name", BAD_POREP)
def test_malformed_porep_input_is_one_line_and_exit_2(name, files, capsys):
    over, words = BAD_POREP[name]
    proof, vk = files
    assert_bad_input(verify(capsys, *porep_argv(Path("."), PUB, proof=proof, vk=vk, **over)), *words)


BAD_POST = {
    "no colon": (["77"], {}, ["N:COMM_R"]),
    "sector twice": ([f"77:{'4a' + '00' * 31}", f"77:{'4b' + '00' * 31}"], {}, ["sector 77", "twice"]),
    "randomness not a field element": ([f"77:{'4a' + '00' * 31}"], {"randomness": "ff" * 32}, ["randomness"]),
    "prover id not a field element": ([f"77:{'4a' + '00' * 31}"], {"prover_id": "ff" * 32}, ["--prover-id"]),
    "a winning proof's number": ([f"77:{'4a' + '00' * 31}"], {"registered_proof": 0, "sector_size": None,
                                                               "api_version": None}, ["--registered-proof"]),
}


@pytest.mark.parametrize("name", BAD_POST)
def test_malformed_window_post_input_is_one_line_and_exit_2(name, files, capsys):
    sectors, over, words = BAD_POST[name]
    proof, vk = files
    pub = {"randomness": "01" * 32, "prover_id": ZERO, "sector_size": "2KiB", "api_version": "1.2.0"}
    argv = window_argv(Path("."), pub, proof=proof, sectors=sectors, **over)
    argv[argv.index("--vk") + 1] = str(vk)
    assert_bad_input(verify(capsys, *argv), *words)


def test_without_vk_the_key_is_looked_up_by_its_filecoin_name(files, capsys, tmp_path, monkeypatch):
    proof, _ = files
    monkeypatch.setenv("FIL_PROOFS_PARAMETER_CACHE", str(tmp_path / "params"))
    argv = porep_argv(Path("."), PUB, proof=proof)
    del argv[argv.index("--vk"):argv.index("--vk") + 2]
    # rust-fil-proofs parameters.json: the 2 KiB PoRep's files
    stem = ("v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
            "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f")
    assert_bad_input(verify(capsys, *argv), str(tmp_path / "params" / f"{stem}.vk"))


def test_a_missing_proof_file_and_a_missing_kind(capsys, tmp_path):
    assert_bad_input(verify(capsys, *porep_argv(Path("."), PUB, proof=tmp_path / "none.bin", vk=tmp_path / "x")),
                     "none.bin")
    rc, out, err = verify(capsys)
    assert rc == 2 and "porep" in err and "window-post" in err and "snap" in err


# ---------------------------------------------------------------- WinningPoSt: a proof cuzk makes


def engine_proof(fields: dict, kind, params, state, timeout: float, kernel_threads: int = 1) -> bytes:
    """The proof a CPU engine makes for a Curio-shaped request under the TEST parameters in `params`."""
    from cuzk.engine import Engine, EngineConfig
    from cuzk.engine.types import JobState, ProofRequest

    cfg = EngineConfig()
    cfg.daemon.state_dir = str(state)
    cfg.gpus.backend, cfg.gpus.gpu_threads, cfg.synthesis.kernel_threads = "cpu", 0, kernel_threads
    cfg.circuits.filecoin_params = str(params)
    engine = Engine(cfg).start()
    try:
        res = engine.prove(ProofRequest(**{**fields, "proof_kind": kind}), timeout)
    finally:
        engine.shutdown(drain=False)
    assert res.state == JobState.COMPLETED, res.error
    return res.proof


@pytest.fixture(scope="module")
def winning(filecoin_params, tmp_path_factory):
    """A 2 KiB WinningPoSt proof an engine makes for a Curio-shaped request under the session's TEST
    parameters; the public data from the request's own bytes (bincode FallbackPoStSectorProof: sector
    id u64, then comm_r)."""
    sys.path.insert(0, str(REPO / "tests"))
    from post_requests import request_fields

    from cuzk.engine.types import ProofKind

    fields = request_fields("winning", 5)
    proof = tmp_path_factory.mktemp("winning") / "proof.bin"
    proof.write_bytes(engine_proof(fields, ProofKind.WINNING_POST, filecoin_params,
                                   tmp_path_factory.mktemp("winning-state"), 900, kernel_threads=0))
    (vanilla,) = fields["vanilla_proofs"]
    return {"proof": proof, "params": filecoin_params, "randomness": bytes(fields["randomness"]).hex(),
            "sector": int.from_bytes(vanilla[:8], "little"), "comm_r": bytes(vanilla[8:40]).hex(),
            "registered_proof": fields["registered_proof"]}


def winning_argv(w: dict, *, proof=None, sectors=None, **over) -> list[str]:
    vals = {"randomness": w["randomness"], "prover-id": ZERO, "registered-proof": w["registered_proof"]}
    vals.update({k.replace("_", "-"): v for k, v in over.items()})
    argv = ["winning-post", "--proof", proof or w["proof"]]
    for k, v in vals.items():
        argv += [f"--{k}", str(v)]
    for s in sectors if sectors is not None else [f"{w['sector']}:{w['comm_r']}"]:
        argv += ["--sector", s]
    return argv


def test_cuzk_winning_post_verifies_and_each_changed_datum_is_invalid(winning, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FIL_PROOFS_PARAMETER_CACHE", str(winning["params"]))  # the key by its Filecoin name
    n, comm_r = winning["sector"], winning["comm_r"]
    assert verify(capsys, *winning_argv(winning))[:2] == (0, "OK\n")
    assert verify(capsys, *winning_argv(winning, registered_proof="stackeddrgwinning2kibv1"))[:2] == (0, "OK\n")
    assert_invalid(verify(capsys, *winning_argv(winning, randomness=flipped(winning["randomness"]))))
    assert_invalid(verify(capsys, *winning_argv(winning, sectors=[f"{n + 1}:{comm_r}"])))
    assert_invalid(verify(capsys, *winning_argv(winning, sectors=[f"{n}:{flipped(comm_r)}"])))
    for at in PROOF_BYTES_FLIPPED.values():
        assert_invalid(verify(capsys, *winning_argv(winning, proof=flip_proof(winning["proof"], tmp_path / f"p{at}",
                                                                                 at))))
    assert_bad_input(verify(capsys, *winning_argv(winning, sectors=[f"{n}:{comm_r}", f"{n + 1}:{comm_r}"])),
                     "1 sector")


# ---------------------------------------------------------------- SnapDeals


def snap_statement(comm_r_old: bytes, comm_d_new: bytes, comm_r_new: bytes) -> list[int]:
    """A 2 KiB update's one partition's public inputs as rust-fil-proofs forms them (storage-proofs-update
    circuit.rs PublicInputs::to_vec), from the Rust constants: hs = [1] * 6 up to 32 KiB (constants.rs
    hs()), h = hs[3] (filecoin-proofs HSelect::from_nodes), one partition, so k_and_h_select =
    0 | 2^index(h) << log2(1) = 1."""
    hs = [1] * 6
    le = lambda b: int.from_bytes(b, "little")  # noqa: E731
    return [0 | (1 << hs.index(hs[3])), le(comm_r_old), le(comm_d_new), le(comm_r_new)]


def stand_in_key_and_proof(tmp_path: Path, public: list[int]) -> tuple[Path, Path]:
    """A bellperson .vk and 192-byte proof of a circuit with four public inputs (each equal to a private
    copy), proved for `public`: it verifies exactly when the command derives `public`."""
    from cuzk.backend import get_backend
    from cuzk.formats.bellperson import proof_to_bytes, write_vk
    from cuzk.groth16 import prover, setup
    from cuzk.r1cs import LC, ONE, RecordingCS, WitnessCS
    from cuzk.r1cs.evaluation import evaluate

    def circuit(cs, values):
        for v in values:
            x = cs.alloc_input(v)
            y = cs.alloc(v)
            cs.enforce(LC.of(y, 1), ONE, x)

    rec = RecordingCS("bls12_381")
    circuit(rec, [None] * len(public))
    cc = rec.compile()
    cpu = get_backend("cpu")
    pk = setup.generate(cc, backend=cpu)
    ws = WitnessCS("bls12_381")
    circuit(ws, public)
    w = ws.witness()
    vk, proof = tmp_path / "stand-in.vk", tmp_path / "stand-in.proof"
    write_vk(vk, pk.vk)
    proof.write_bytes(proof_to_bytes(prover.prove(pk, w, evaluate(cc, w), backend=cpu)))
    return vk, proof


def snap_argv(vk, proof, old: bytes, d_new: bytes, new: bytes, **over) -> list[str]:
    vals = {"registered-proof": 0, "comm-r-old": old.hex(), "comm-r-new": new.hex(), "comm-d-new": d_new.hex()}
    vals.update({k.replace("_", "-"): v for k, v in over.items()})
    argv = ["snap", "--vk", vk, "--proof", proof]
    for k, v in vals.items():
        if v is not None:
            argv += [f"--{k}", str(v)]
    return argv


def test_snap_verifies_the_statement_rust_fil_proofs_defines(capsys, tmp_path):
    old, d_new, new = (bytes([i]) + bytes(range(7, 38)) for i in (1, 2, 3))
    vk, proof = stand_in_key_and_proof(tmp_path, snap_statement(old, d_new, new))
    assert verify(capsys, *snap_argv(vk, proof, old, d_new, new))[:2] == (0, "OK\n")
    assert verify(capsys, *snap_argv(vk, proof, old, d_new, new, registered_proof=None,
                                     sector_size="2KiB"))[:2] == (0, "OK\n")
    as_cids = dict(comm_r_old=cid(SEALED, POSEIDON_A2_FC1, old), comm_r_new=cid(SEALED, POSEIDON_A2_FC1, new),
                   comm_d_new=cid(UNSEALED, SHA2_TRUNC254, d_new))
    assert verify(capsys, *snap_argv(vk, proof, old, d_new, new, **as_cids))[:2] == (0, "OK\n")
    for name in ("comm_r_old", "comm_r_new", "comm_d_new"):
        value = {"comm_r_old": old, "comm_r_new": new, "comm_d_new": d_new}[name]
        assert_invalid(verify(capsys, *snap_argv(vk, proof, old, d_new, new, **{name: flipped(value.hex())})))
    # comm_r_old and comm_r_new swapped: each a valid value, in the wrong place
    assert_invalid(verify(capsys, *snap_argv(vk, proof, new, d_new, old)))
    assert_invalid(verify(capsys, *snap_argv(vk, flip_proof(proof, tmp_path / "flipped", 191), old, d_new, new)))
    assert_bad_input(verify(capsys, *snap_argv(vk, proof, old, d_new, new, comm_d_new="ff" * 32)), "comm_d_new",
                     "field element")
    assert_bad_input(verify(capsys, *snap_argv(vk, proof, old, d_new, new, registered_proof=5)), "--registered-proof")


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("CUZK_LONG_FILECOIN") != "1",
                    reason="a 2 KiB SnapDeals proof on the CPU takes minutes (setup of 1.7M constraints): set "
                           "CUZK_LONG_FILECOIN=1")
def test_a_snap_proof_cuzk_makes_verifies(capsys, tmp_path):
    """The real 2 KiB update circuit: TEST parameters by `cuzk setup --kind snap`, a Curio-shaped request
    proved by an engine, then the command on the request's commitments."""
    from cuzk.circuits.filecoin.snap.config import snap_config
    from cuzk.engine.types import ProofKind
    from cuzk.circuits.filecoin.snap.request import sample_request

    params = tmp_path / "params"
    assert main(["setup", "--kind", "snap", "--sector-size", "2KiB", "--params-dir", str(params),
                 "--backend", "cpu"]) == 0
    fields = sample_request(snap_config(0), 6)
    proof = tmp_path / "snap.proof"
    proof.write_bytes(engine_proof(fields, ProofKind.SNAP_DEALS_UPDATE, params, tmp_path / "state", 1800))
    vk = next(params.glob("*.vk"))
    old, new, d_new = (bytes(fields[k]) for k in ("comm_r_old", "comm_r_new", "comm_d_new"))
    assert verify(capsys, *snap_argv(vk, proof, old, d_new, new))[:2] == (0, "OK\n")
    assert_invalid(verify(capsys, *snap_argv(vk, proof, old, d_new, bytes.fromhex(flipped(new.hex())))))
