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

from __future__ import annotations

import importlib

# name -> (submodule, attribute): imported on first use (PEP 562), so that a
# reader of compiled circuits (`cuzk.r1cs.compiled`, what `cuzk prove` needs)
# does not pay for the constraint-system writers' imports.
_EXPORTS = {
    "TestCS": ("checking", "TestCS"),
    "decode_coefficient": ("coefficients", "decode"),
    "encode_coefficient": ("coefficients", "encode"),
    "CompiledCircuit": ("compiled", "CompiledCircuit"),
    "CsrMatrix": ("compiled", "CsrMatrix"),
    "check_satisfied": ("evaluation", "check_satisfied"),
    "evaluate": ("evaluation", "evaluate"),
    "unsatisfied_rows": ("evaluation", "unsatisfied_rows"),
    "LC": ("linear_combination", "LC"),
    "LinearCombination": ("linear_combination", "LinearCombination"),
    "load_compiled": ("pce_file", "load"),
    "save_compiled": ("pce_file", "save"),
    "RecordingCS": ("recording", "RecordingCS"),
    "SparseRows": ("stamping", "SparseRows"),
    "Template": ("stamping", "Template"),
    "CURVES": ("system", "CURVES"),
    "ConstraintSystem": ("system", "ConstraintSystem"),
    "ONE": ("variable", "ONE"),
    "Variable": ("variable", "Variable"),
    "aux_var": ("variable", "aux_var"),
    "columns": ("variable", "columns"),
    "index_of": ("variable", "index_of"),
    "input_var": ("variable", "input_var"),
    "is_aux": ("variable", "is_aux"),
    "is_input": ("variable", "is_input"),
    "WitnessCS": ("witness", "WitnessCS"),
}


def __getattr__(name: str):
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))


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

