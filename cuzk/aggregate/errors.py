"""Errors of the aggregation package: every reader of outside bytes raises these.

They subclass the project's FormatError / ValidationError, so the CLI prints
one line and exits 2 for malformed files, while `verify-aggregate` turns a
well-formed but wrong aggregate into INVALID (exit 1).
"""

from __future__ import annotations

from cuzk.errors import CuzkError, FormatError, ValidationError


class AggregateFormatError(FormatError):
    """Aggregate-proof bytes that do not follow the documented layout."""


class SrsFormatError(FormatError):
    """A reference-string file that does not follow the documented layout."""


class SrsTooSmall(CuzkError, ValueError):
    """The reference string holds fewer powers than the aggregation needs."""


class AggregateInputError(ValidationError):
    """Proofs / public inputs / keys that cannot be aggregated together."""
