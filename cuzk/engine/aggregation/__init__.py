"""The aggregation room: SnarkPack aggregates of proofs the engine made (or was given), and their
verification, behind ProvingEngine.aggregate_jobs / aggregate_proofs / verify_aggregate.

    statements.py  what is aggregated: proofs and public inputs from jobs or as given, checked
    srs_cache.py   aggregation reference strings, read once and kept
    aggregator.py  the operations: their worker threads, cancellation, logging
    metrics.py     their Prometheus series

The maths is cuzk.aggregate's; this room adds what an engine needs around it. Both engines (one
machine, the cluster front) hold one `Aggregator`.
"""

from .aggregator import Aggregator

__all__ = ["Aggregator"]
