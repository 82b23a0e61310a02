"""The textbook circuit: public y = x^3 + x + 5 for a private x (four constraints), and with
`double` a second public input z = 2x. Setup and proving take milliseconds, so the aggregation
benchmark, the fuzzers' seeds and the Groth16 and aggregation tests prove it."""

from __future__ import annotations

from cuzk.r1cs import LC, ONE


def cube_circuit(cs, x, double: bool = False) -> None:
    """Synthesize the circuit into `cs` for the private x (any value when recording)."""
    xv = cs.alloc(x)
    x2 = cs.alloc(lambda: x * x)
    x3 = cs.alloc(lambda: x * x * x)
    y = cs.alloc_input(lambda: x**3 + x + 5)
    if double:
        z = cs.alloc_input(lambda: 2 * x)
    cs.enforce(xv, xv, x2)
    cs.enforce(x2, xv, x3)
    cs.enforce(LC.of(x3, 1) + LC.of(xv, 1) + LC.constant(5), ONE, y)
    if double:
        cs.enforce(LC.of(xv, 2), ONE, z)
