"""The project's own error types: every reader of outside bytes raises these."""


class CuzkError(Exception):
    """Base class; the CLI prints the message (no traceback) and exits 2."""


class FormatError(CuzkError, ValueError):
    """Malformed or inconsistent input bytes; the message names the section/field."""


class ValidationError(CuzkError, ValueError):
    """Well-formed input that fails a mathematical check (not on curve, not in subgroup, ...)."""


class BackendUnavailable(CuzkError, RuntimeError):
    """A requested backend (e.g. cuda) cannot run on this machine."""
