"""The cluster front as a library (issue 10) on a local Ray cluster of two proving nodes (a third
joins and leaves in one test): routing, affinity, priorities across nodes, node failure, status
and metrics. Tests run in file order and share the cluster; each leaves every node idle."""

from __future__ import annotations

import collections
import time

import pytest
from conftest import CID, NODE_FAULTS, SLOW, TIMEOUT, cluster_config
from groth16_oracle import assert_proves
from prometheus_client.parser import text_string_to_metric_families

from cuzk.cluster import ClusterEngine, ClusterOptions
from cuzk.cluster.local import local_cluster, node_args
from cuzk.engine import JobState, Priority, ProofRequest
from cuzk.engine.errors import DuplicateRequestConflict, JobNotFound, UnknownCircuit
from cuzk.engine.types import Tier


@pytest.fixture(scope="module")
def cluster(ray_tmp):
    with local_cluster(2, temp_dir=ray_tmp) as c:
        yield c


@pytest.fixture(scope="module")
def front(cluster, tmp_path_factory):
    cfg = cluster_config(tmp_path_factory.mktemp("state"), tmp_path_factory.mktemp("params"))
    f = ClusterEngine(cfg, options=ClusterOptions(poll_s=0.3, node_faults=NODE_FAULTS, log_to_driver=False))
    f.start()
    try:
        f.wait_for_nodes(2, TIMEOUT)
        f.preload(CID)  # parameters generated once (first node alone), then hot on both
        yield f
    finally:
        f.shutdown(drain=False, timeout=30)


SENT: dict[str, bytes] = {}  # job id -> the vanilla proof its request carried


def req(vanilla, **kw) -> ProofRequest:
    return ProofRequest(circuit_id=CID, vanilla_proof=vanilla(), **kw)


def submit(front, request: ProofRequest):
    """front.submit, remembering the request's vanilla proof (the oracle's input) by job id."""
    v = bytes(request.vanilla_proof)
    res = front.submit(request)
    SENT.setdefault(res.job_id, v)
    return res


def check(front, r):
    """Completed, and the proof verifies (outside oracle) against the statement of the vanilla proof
    the job was submitted with, under the .vk on the shared parameter directory."""
    assert r.state == JobState.COMPLETED, r.error
    assert len(r.proof) == 2 * 192  # one proof per partition
    assert_proves(front.config.param_dir(), CID, SENT[r.job_id], r.proof, r.public_inputs)


def submit_all(front, requests) -> list[str]:
    """Submit while the front is paused, so one dispatch pass places them all."""
    front.pause()
    try:
        return [submit(front, r).job_id for r in requests]
    finally:
        front.pause(False)


def until(what, predicate, limit=TIMEOUT):
    end = time.monotonic() + limit
    while not predicate():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


def ready_nodes(front) -> list[str]:
    return sorted(n.name for n in front.nodes() if n.state == "ready")


def test_jobs_spread_over_nodes_and_verify(front, vanilla):
    a, b = ready_nodes(front)
    ids = submit_all(front, [req(vanilla) for _ in range(4)])
    for i in ids:
        check(front, front.await_job(i, TIMEOUT))
    # both nodes hot: each gets as many as it has slots (1 prover worker + 1)
    assert collections.Counter(front.node_of(i) for i in ids) == {a: 2, b: 2}
    assert sorted(front.result(front.job(i)).start_seq for i in ids) == sorted(front.job(i).dispatch_seq for i in ids)


def test_hot_parameters_attract_jobs_until_the_node_is_full(front, vanilla):
    a, b = ready_nodes(front)
    was_loaded, freed = front.evict(CID, node=b)
    assert was_loaded and freed > 0
    tiers = {n.name: {i.circuit_id: i.tier for i in n.engine.srs} for n in front.status().nodes}
    assert tiers[a][CID] == Tier.HOT and tiers[b][CID] != Tier.HOT
    ids = submit_all(front, [req(vanilla) for _ in range(3)])
    for i in ids:
        check(front, front.await_job(i, TIMEOUT))
    assert [front.node_of(i) for i in ids] == [a, a, b]  # hot node while it has a slot, then the other


def test_critical_job_goes_before_normal_jobs_queued_at_the_front(front, vanilla):
    busy = [submit(front, req(vanilla, request_id=f"{SLOW}fill-{k}", priority=Priority.NORMAL)).job_id
            for k in range(4)]
    until("every slot busy", lambda: all(front.job(i).node for i in busy))
    assert all(n.assigned == n.capacity for n in front.nodes())
    front.pause()
    normal = [submit(front, req(vanilla, priority=Priority.NORMAL)).job_id for _ in range(2)]
    critical = submit(front, req(vanilla, priority=Priority.CRITICAL))
    assert critical.queue_position == 0
    front.pause(False)
    results = {i: front.await_job(i, TIMEOUT) for i in busy + normal + [critical.job_id]}
    for r in results.values():
        check(front, r)
    first_free = min(results[i].start_seq for i in normal + [critical.job_id])
    assert results[critical.job_id].start_seq == first_free  # the first slot that freed up, on either node
    assert results[critical.job_id].priority == Priority.CRITICAL


def test_job_of_a_killed_node_completes_on_another(front, vanilla):
    import ray

    job_id = submit(front, req(vanilla, request_id=f"{SLOW}kill")).job_id
    until("the job running on a node",
          lambda: front.result(front.job(job_id)).state in (JobState.SYNTHESIZING, JobState.PROVING))
    victim = front.node_of(job_id)
    ray.kill(front.node_actor(victim))
    r = front.await_job(job_id, TIMEOUT)
    check(front, r)
    job = front.job(job_id)
    assert r.job_id == job_id and job.nodes[0] == victim and job.nodes[-1] != victim
    assert r.retries >= 1 and job.attempts == 2
    text = front.metrics_text()
    assert "cuzk_cluster_resubmitted_total 1.0" in text and "cuzk_cluster_nodes_lost_total 1.0" in text
    front.wait_for_nodes(2, TIMEOUT)  # the node is still in the cluster: it gets a new actor


def test_node_that_joins_gets_work_and_a_node_that_leaves_loses_none(front, cluster, vanilla):
    before = set(front.wait_for_nodes(2, TIMEOUT))
    for name in before:  # the replaced actor of the last test starts cold: make both hot again
        front.preload(CID, node=name)
    node = cluster.add_node(**node_args())
    new = (set(front.wait_for_nodes(3, TIMEOUT)) - before).pop()
    ids = submit_all(front, [req(vanilla) for _ in range(6)])
    for i in ids:
        check(front, front.await_job(i, TIMEOUT))
    assert collections.Counter(front.node_of(i) for i in ids)[new] == 2  # the cold node once the hot ones are full

    ids = submit_all(front, [req(vanilla, request_id=f"{SLOW}leave-{k}") for k in range(5)])
    leaving = [i for i in ids if front.node_of(i) == new]
    assert leaving  # all three hot now: the least loaded take turns
    cluster.remove_node(node)
    for i in ids:
        check(front, front.await_job(i, TIMEOUT))
    for i in leaving:
        assert front.job(i).nodes[0] == new and front.node_of(i) in before
    until("the front to forget the node", lambda: new not in {n.name for n in front.nodes()})


def test_status_lists_nodes_and_metrics_carry_a_node_label(front, vanilla):
    names = front.wait_for_nodes(2, TIMEOUT)
    before = front.status().completed
    for i in submit_all(front, [req(vanilla) for _ in range(2)]):
        check(front, front.await_job(i, TIMEOUT))
    s = front.status()
    assert sorted(n.name for n in s.nodes) == names
    for n in s.nodes:
        assert n.state == "ready" and n.capacity == 2 and n.assigned == 0 and n.address == "127.0.0.1"
        assert len(n.engine.devices) == 1 and n.engine.devices[0].kind == "cpu"
        assert CID in {i.circuit_id for i in n.engine.srs}
    assert len(s.devices) == 2 and {d.name.split(":")[0] for d in s.devices} == set(names)
    assert s.completed == before + 2 and s.failed == 0  # the front's count: each job once, whatever node proved it
    text = front.metrics_text()
    families = {f.name: f for f in text_string_to_metric_families(text)}  # parses: one header per family
    done = families["cuzk_proofs_completed"]
    assert {s.labels["node"] for s in done.samples} >= set(names)
    assert text.count("# TYPE cuzk_proofs_completed_total counter") == 1
    assert 'cuzk_cluster_nodes{state="ready"} 2.0' in text


def test_bad_requests_and_cancel(front, vanilla):
    with pytest.raises(UnknownCircuit):
        front.submit(ProofRequest(circuit_id="no-such-circuit", vanilla_proof=b"x"))
    bad = front.await_job(front.submit(ProofRequest(circuit_id=CID, vanilla_proof=b"not a container")).job_id,
                          TIMEOUT)
    assert bad.state == JobState.FAILED and bad.error and "\n" not in bad.error
    with pytest.raises(JobNotFound):
        front.job("no-such-job")
    front.pause()
    try:
        queued = submit(front, req(vanilla)).job_id
        c = front.cancel(queued)
        assert not c.was_running and c.state == JobState.CANCELLED
        assert front.await_job(queued, 1).state == JobState.CANCELLED
    finally:
        front.pause(False)
    running = submit(front, req(vanilla, request_id=f"{SLOW}cancel")).job_id
    until("the job on a node", lambda: front.job(running).node)
    c = front.cancel(running)
    assert c.was_running and c.state == JobState.CANCELLED
    r = front.await_job(running, 1)
    assert r.state == JobState.CANCELLED and r.error == "cancelled by request"
    until("its node's slot to free up", lambda: all(n.assigned == 0 for n in front.nodes()))


def test_reused_request_id_is_one_job(front, vanilla):
    v = vanilla()
    a = submit(front, ProofRequest(circuit_id=CID, request_id="same-1", vanilla_proof=v))
    b = front.submit(ProofRequest(circuit_id=CID, request_id="same-1", vanilla_proof=v))
    assert a.job_id == b.job_id == "same-1" and b.duplicate
    with pytest.raises(DuplicateRequestConflict):
        front.submit(ProofRequest(circuit_id=CID, request_id="same-1", vanilla_proof=vanilla()))
    check(front, front.await_job("same-1", TIMEOUT))
