"""Constraint systems and compiled circuits (PCE).

Writing circuits (see `system` for the full contract):

    from cuzk.r1cs import LC, ONE, RecordingCS, WitnessCS, TestCS
    cs = TestCS("bls12_381")
    x = cs.alloc(3); y = cs.alloc_input(9)
    cs.enforce(x, x, y)
    assert cs.is_satisfied()

Variables are ints (input i -> i, ONE = 0; aux j -> ~j), linear combinations
are `LC` (parallel int64 arrays), values are ints or Montgomery uint64[n, 4].
`RecordingCS.compile()` -> `CompiledCircuit` (CSR A/B/C, coefficient table,
densities, topology hash; `save_compiled`/`load_compiled` an mmap-able file);
`evaluate(circuit, w)` -> (a, b, c) by SpMV. Gadgets repeated N times are
recorded once (`cs.template()`) and stamped (`cs.stamp(...)`).
circom's .r1cs/.wtns files are read by cuzk.formats (circom_r1cs, wtns).
"""

from .checking import TestCS
from .coefficients import decode as decode_coefficient
from .coefficients import encode as encode_coefficient
from .compiled import CompiledCircuit, CsrMatrix
from .evaluation import check_satisfied, evaluate, unsatisfied_rows
from .linear_combination import LC, LinearCombination
from .pce_file import load as load_compiled
from .pce_file import save as save_compiled
from .recording import RecordingCS
from .stamping import SparseRows, Template
from .system import CURVES, ConstraintSystem
from .variable import ONE, Variable, aux_var, columns, index_of, input_var, is_aux, is_input
from .witness import WitnessCS

__all__ = [
    "ONE",
    "Variable",
    "LC",
    "LinearCombination",
    "ConstraintSystem",
    "RecordingCS",
    "WitnessCS",
    "TestCS",
    "Template",
    "SparseRows",
    "CURVES",
    "aux_var",
    "input_var",
    "is_aux",
    "is_input",
    "index_of",
    "columns",
    "encode_coefficient",
    "decode_coefficient",
    "CompiledCircuit",
    "CsrMatrix",
    "load_compiled",
    "save_compiled",
    "evaluate",
    "check_satisfied",
    "unsatisfied_rows",
]

