"""What proofs run on: the host-memory budget (memory.py) and the proving devices (devices.py).

May import: the engine's errors.py, and cuzk.backend below the engine; no other room.
"""
