"""What one partition holds in host memory: the witness alone when a GPU evaluates the rows."""

from cuzk.circuits.filecoin.porep import provable as porep
from cuzk.engine.catalog.filecoin_sector import make_spec
from cuzk.engine.catalog.registry import host_working_bytes


def test_32GiB_porep_partition_on_a_gpu_holds_its_witness_and_staging_copy_only(tmp_path):
    spec = make_spec(porep, "32GiB", tmp_path)  # counts only: nothing is compiled
    variables = 328 + 130_169_893  # ONE and 327 public inputs, aux: `cuzk circuit info --kind porep --sector-size 32GiB`
    assert host_working_bytes(spec, rows_on_device=True) == 2 * 32 * variables  # 8.3 GB
    # on the host path a, b, c and the H vectors are there too: 32 B x (vars + 3 rows + 9 x 2^27), the rows
    # rust-fil-proofs' 130,278,541 constraints and the 328 input constraints
    assert host_working_bytes(spec, rows_on_device=False) == 32 * (variables + 3 * (130_278_541 + 328) + 9 * 2**27)
    assert not list(tmp_path.iterdir())
