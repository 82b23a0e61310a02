"""Proving parameters: where a circuit's key comes from (sources.py, generated.py), test parameters
of Filecoin's circuits under their Filecoin names (filecoin_test.py), and the SRS manager that
keeps keys in tiers hot / warm / cold (tiers.py).

May import: the engine's types.py and errors.py, the resources room, and the layers below the
engine (circuits, groth16, formats).
"""
