"""Errors of cluster mode."""

from __future__ import annotations

from cuzk.errors import CuzkError


class ClusterError(CuzkError):
    """The cluster cannot be used as asked (Ray missing, address unreachable, no such node)."""


def import_ray():
    """Ray, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ClusterError("cluster mode needs Ray: pip install 'cuzk[cluster]' (ray>=2.60)") from None
    return ray
