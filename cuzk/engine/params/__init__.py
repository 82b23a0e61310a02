"""Proving parameters: where a circuit's key comes from (sources.py, generated.py) and the SRS
manager that keeps keys in tiers hot / warm / cold (tiers.py).

May import: the engine's types.py and errors.py, the resources room, and the layers below the
engine (groth16, formats).
"""
