"""What one partition holds in host memory: the witness alone when a GPU evaluates the rows."""

from cuzk.circuits import get_kind
from cuzk.engine.catalog.registry import host_working_bytes
from cuzk.engine.catalog.workloads import make_spec


def test_32g_partition_on_a_gpu_holds_its_witness_and_staging_copy_only(tmp_path):
    spec = make_spec(get_kind("porep-c2-like"), "32g", tmp_path)  # counts only: nothing is compiled
    variables = 1 + 273 + 130_099_026  # ONE, 273 public inputs, aux: `cuzk circuit info --preset 32g`
    assert host_working_bytes(spec, rows_on_device=True) == 2 * 32 * variables  # 8.3 GB
    # on the host path a, b, c and the H vectors are there too: 32 B x (vars + 3 rows + 9 x 2^27)
    assert host_working_bytes(spec, rows_on_device=False) == 32 * (variables + 3 * 130_207_372 + 9 * 2**27)
    assert not (tmp_path / "porep-c2-like-32g.pce").exists()
