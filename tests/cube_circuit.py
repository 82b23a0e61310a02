"""The tiny circuit the Groth16 and aggregation tests prove: public y = x^3 + x + 5 and z = 2x
(two public inputs, four constraints)."""

from __future__ import annotations

from cuzk.r1cs import LC, ONE


def cube_circuit(cs, x):
    """Public y = x^3 + x + 5 and public z = 2x (two public inputs)."""
    xv = cs.alloc(x)
    x2 = cs.alloc(lambda: x * x)
    x3 = cs.alloc(lambda: x * x * x)
    y = cs.alloc_input(lambda: x**3 + x + 5)
    z = cs.alloc_input(lambda: 2 * x)
    cs.enforce(xv, xv, x2)
    cs.enforce(x2, xv, x3)
    cs.enforce(LC.of(x3, 1) + LC.of(xv, 1) + LC.constant(5), ONE, y)
    cs.enforce(LC.of(xv, 2), ONE, z)
