"""The circuit catalog: what the engine can prove. The registry (registry.py) and its entries:
Filecoin's circuits (filecoin_post.py for PoSt; filecoin_sector.py for PoRep and SnapDeals, driven
by their kinds' provable objects), the synthetic test circuit (synthetic.py), circom circuits from
config (circom.py); served.py builds a configured engine's registry.

May import: the engine's types.py, errors.py, config.py, the params room, and the layers below the
engine (circuits, r1cs, formats).
"""
