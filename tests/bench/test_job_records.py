"""The bench's per-job records from the daemon's answers: a partition the daemon proved again (out of
device memory, say) shows in the job's row and the summary, so a slow run says why."""

from __future__ import annotations

from cuzk.bench.daemon_jobs import Record, fill, print_records, print_summary, summarize
from cuzk.proto import proving_pb2 as pb


def answer(job_id: str, retries: int) -> pb.AwaitProofResponse:
    return pb.AwaitProofResponse(job_id=job_id, status=pb.AwaitProofResponse.COMPLETED, proof=b"\x01" * 192,
                                 gpu_compute_ms=1000, total_ms=1200, batch_size=1, retries=retries,
                                 priority=pb.NORMAL)


def test_retries_reach_the_table_and_the_summary(capsys):
    records = []
    for i, retries in enumerate((0, 3)):
        rec = Record(i, "porep-32GiB")
        fill(rec, answer(f"job{i}", retries))
        records.append(rec)
    assert [r.retries for r in records] == [0, 3]
    s = summarize(records, 10.0)
    assert s["retries"] == 3 and s["completed"] == 2
    print_records(records)
    print_summary(s)
    out = capsys.readouterr().out
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "retries" in line and "job" in line)
    header, rule = lines[at], lines[at + 1]  # the rule's runs of dashes give each column's span
    spans, pos = [], 0
    for run in rule.split():
        start = rule.index(run, pos)
        spans.append((start, start + len(run)))
        pos = start + len(run)
    col = next(k for k, (a, b) in enumerate(spans) if header[a:b].strip() == "retries")
    a, b = spans[col]
    assert [lines[at + 2 + k][a:b].strip() for k in range(2)] == ["0", "3"]
    assert "retried partitions: 3" in out
