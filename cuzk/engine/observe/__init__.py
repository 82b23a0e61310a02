"""Looking at a running engine: Prometheus metrics (metrics.py), the pipeline trace (trace.py)
and the process's resident memory (process.py).

May import: no other room (they read the engine they observe through its attributes).
"""
