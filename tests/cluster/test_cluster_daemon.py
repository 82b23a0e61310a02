"""`cuzk daemon --ray-address` (issue 10): the gRPC front of a local two-node Ray cluster, used
through the real client (cuzk.server.client) on a unix socket, as a single daemon would be."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import grpc
import pytest
from aggregate_oracle import aggregate_verifies
from conftest import CID, TIMEOUT
from groth16_oracle import assert_proves, vk_file
from post_requests import CIRCUITS, assert_post_proves, request_fields
from prometheus_client.parser import text_string_to_metric_families
from vanilla_statements import expected_public_inputs

from cuzk.aggregate import srs
from cuzk.cluster.local import local_cluster
from cuzk.proto import proving_pb2 as pb
from cuzk.server.client import ProvingClient
from cuzk.server.convert import public_inputs_from_proto

WAIT_MS = TIMEOUT * 1000
S = pb.AwaitProofResponse


class FrontDaemon:
    """`cuzk daemon --config F --ray-address ADDR` as a child process on a private unix socket."""

    def __init__(self, workdir, ray_address: str, param_dir, filecoin_params):
        self.workdir = workdir
        self.param_dir = param_dir
        self.socket = workdir / "cuzk.sock"
        self.log = workdir / "daemon.log"
        self.config = workdir / "cuzk.toml"
        self.config.write_text(f'[daemon]\nlisten = "unix://{self.socket}"\nstate_dir = "{workdir}"\n'
                               f'[gpus]\nbackend = "cpu"\ngpu_threads = 1\n[synthesis]\nthreads = 1\n'
                               f'[memory]\ntotal_budget = "2GiB"\n'
                               f'[srs]\nparam_cache = "{param_dir}"\n[circuits]\n'
                               f'synthetic = true\nfilecoin_params = "{filecoin_params}"\n')
        self.args = [sys.executable, "-m", "cuzk", "daemon", "--config", str(self.config), "--ray-address",
                     ray_address]
        self.proc = None

    def start(self) -> "FrontDaemon":
        with open(self.log, "ab") as fh:
            self.proc = subprocess.Popen(self.args, stdout=fh, stderr=subprocess.STDOUT, env=dict(os.environ))
        end = time.monotonic() + TIMEOUT
        while True:
            assert self.proc.poll() is None, f"the front exited ({self.proc.returncode}):\n{self.log_text()}"
            if self.socket.exists():
                try:
                    with self.client() as c:
                        c.wait_ready(5)
                        if sum(n.state == "ready" for n in c.status().nodes) == 2:
                            return self
                except Exception:
                    pass
            assert time.monotonic() < end, f"the front was not ready:\n{self.log_text()}"
            time.sleep(0.2)

    def client(self) -> ProvingClient:
        return ProvingClient(f"unix:{self.socket}")

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")[-6000:]

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.terminate()  # SIGTERM: drain
        try:
            return self.proc.wait(120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return -9


@pytest.fixture(scope="module")
def daemon(tmp_path_factory, ray_tmp, filecoin_params):
    with local_cluster(2, connect=False, temp_dir=ray_tmp) as cluster:
        d = FrontDaemon(tmp_path_factory.mktemp("front"), cluster.address, tmp_path_factory.mktemp("params"),
                        filecoin_params)
        d.filecoin_params = filecoin_params
        try:
            yield d.start()
        finally:
            d.stop()


def verified(daemon, r, v: bytes) -> bool:
    """The proof verifies (outside oracle) against the statement of the vanilla proof `v` under the .vk
    the nodes generated in the shared parameter directory, and the front reported those inputs."""
    assert_proves(daemon.param_dir, r.circuit_id, v, r.proof, public_inputs_from_proto(r))
    return True


def test_front_serves_the_proving_api(daemon, vanilla):
    with daemon.client() as c:
        c.preload(CID)  # both nodes: generated once, then loaded
        inputs = {}
        for _ in range(4):
            v = vanilla()
            inputs[c.submit(circuit_id=CID, vanilla_proof=v).job_id] = v
        fields = request_fields("window", 7)  # a WindowPoSt request as Curio sends it, routed by its kind
        w = c.prove(timeout_ms=WAIT_MS, **fields)
        assert w.status == S.COMPLETED and w.circuit_id == CIRCUITS["window"] and w.priority == pb.HIGH, \
            w.error_message
        assert_post_proves(daemon.filecoin_params, w.circuit_id, fields, w.proof, public_inputs_from_proto(w))
        for i, v in inputs.items():
            r = c.await_proof(i, timeout_ms=WAIT_MS)
            assert r.status == S.COMPLETED and r.job_id == i and len(r.proof) == 2 * 192, r.error_message
            assert verified(daemon, r, v)
        assert c.trace().startswith('{"ev": "meta"')  # GetTrace answers (the front records no stages)
        bad = c.prove(circuit_id=CID, vanilla_proof=b"junk", timeout_ms=WAIT_MS)
        assert bad.status == S.FAILED and bad.error_message


def test_status_lists_every_node(daemon):
    with daemon.client() as c:
        s = c.status()
    assert len(s.nodes) == 2 and len(s.gpus) == 2  # the merged view: one CPU device per node
    assert s.total_proofs_completed == 5 and s.total_proofs_failed == 1
    for n in s.nodes:
        assert n.name.startswith("node-") and n.state == "ready" and n.capacity == 2 and n.assigned == 0
        assert len(n.gpus) == 1 and n.gpus[0].backend == "cpu"
        assert {x.circuit_id: x.tier for x in n.loaded_srs}[CID] == pb.SRSStatus.HOT
    assert sum(n.total_proofs_completed for n in s.nodes) == 5  # the work was spread over both
    assert all(n.total_proofs_completed > 0 for n in s.nodes)


def test_metrics_merge_the_nodes(daemon):
    with daemon.client() as c:
        names = {n.name for n in c.status().nodes}
        text = c.metrics()
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    done = [s for s in fams["cuzk_proofs_completed"].samples if s.labels.get("circuit_id") == CID]
    assert {s.labels["node"] for s in done} == names and sum(s.value for s in done) == 4  # and 1 WindowPoSt
    assert fams["cuzk_cluster_nodes"].samples


def test_front_serves_aggregate_and_verify_aggregate(daemon, vanilla, tmp_path):
    """SnarkPack through the front (issue 41): two jobs proved on the nodes, aggregated at the front with
    an SRS file on its host; the aggregate holds under the oracle (aggregate_oracle.py, with the .vk on
    the shared parameter directory and the statements of the vanilla proofs), and VerifyAggregate
    agrees; a tampered aggregate is refused, an unknown job is NOT_FOUND."""
    generic = srs.generate("bls12_381", 4)
    path = tmp_path / "agg.srs"
    srs.write(generic, path)
    with daemon.client() as c:
        jobs = []
        for _ in range(2):
            v = vanilla()
            r = c.prove(circuit_id=CID, vanilla_proof=v, timeout_ms=WAIT_MS)
            assert r.status == S.COMPLETED, r.error_message
            jobs.append((r.job_id, v))
        rows = [row for _, v in jobs for row in expected_public_inputs(v)]
        agg = c.aggregate(job_ids=[jid for jid, _ in jobs], srs_path=str(path))
        assert (agg.num_proofs, agg.padded_proofs, agg.circuit_id) == (4, 4, CID)
        assert public_inputs_from_proto(agg) == rows
        assert aggregate_verifies(generic, vk_file(daemon.param_dir, CID), rows, agg.aggregate)
        ok = c.verify_aggregate(agg.aggregate, rows, srs_data=path.read_bytes(), circuit_id=CID)
        assert ok.valid and ok.reason == "", ok.reason
        bad = bytearray(agg.aggregate)
        bad[len(bad) // 2] ^= 1
        assert not aggregate_verifies(generic, vk_file(daemon.param_dir, CID), rows, bytes(bad))
        assert not c.verify_aggregate(bytes(bad), rows, srs_path=str(path), circuit_id=CID).valid
        with pytest.raises(grpc.RpcError) as exc:
            c.aggregate(job_ids=["no-such-job"], srs_path=str(path))
        assert exc.value.code() == grpc.StatusCode.NOT_FOUND
        fams = {f.name: f for f in text_string_to_metric_families(c.metrics())}  # one header per family
    got = {(s.labels["rpc"], s.labels["result"]): s.value for s in fams["cuzk_aggregate_requests"].samples}
    assert got == {("Aggregate", "ok"): 1, ("VerifyAggregate", "ok"): 2, ("Aggregate", "not_found"): 1}


def test_sigterm_drains_and_exits_cleanly(daemon):
    assert daemon.stop() == 0, daemon.log_text()
    assert "stopped (drained)" in daemon.log_text()


def test_unreachable_ray_address_is_a_one_line_error(tmp_path):
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there
    p = subprocess.run([sys.executable, "-m", "cuzk", "daemon", "--state-dir", str(tmp_path), "--ray-address",
                        f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=120)
    assert p.returncode != 0
    last = p.stderr.strip().splitlines()[-1]
    assert last == f"cuzk: error: cannot reach the Ray head at 127.0.0.1:{port}: Connection refused"
    assert "Traceback" not in p.stderr
