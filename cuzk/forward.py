"""`forward`: a read-only property that reads an attribute of a member.

Wrappers (jobs, queue entries, stamped gadgets) expose a few attributes of the
objects they hold; one line per attribute says that better than a four-line getter.
"""

from operator import attrgetter


def forward(path: str) -> property:
    """A read-only property returning `self.<path>` (dotted: "spec.circuit_id")."""
    return property(attrgetter(path), doc=f"self.{path}")
