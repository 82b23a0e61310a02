"""JSON from outside the process, parsed without surprises.

`json.loads` raises more than JSONDecodeError (ValueError for integers over
Python's digit limit, RecursionError for deep nesting), and its C scanner
recurses once per nesting level: with a raised recursion limit (libraries
do raise it) a deeply nested document can overflow the C stack and kill the
process. So the nesting depth is measured first, without recursion, and
every failure becomes a FormatError naming the input.
"""

from __future__ import annotations

import json
import re

import numpy as np

from cuzk.errors import FormatError

MAX_DEPTH = 64  # far above any file cuzk reads (proofs and keys nest 3 deep)
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)


def nesting_depth(raw: bytes) -> int:
    """The deepest [ / { nesting outside string literals (linear time, no recursion)."""
    body = np.frombuffer(_STRINGS.sub(b'""', raw), dtype=np.uint8)
    step = (np.isin(body, (ord("["), ord("{"))).astype(np.int64)
            - np.isin(body, (ord("]"), ord("}"))).astype(np.int64))
    return int(np.cumsum(step).max(initial=0))


def loads(data: bytes | str, where: str, max_depth: int = MAX_DEPTH):
    """UTF-8 JSON text -> Python objects; FormatError (naming `where`) for anything malformed."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{where}: cannot read (not UTF-8 text: {exc.reason} at byte {exc.start})") from None
    if nesting_depth(raw) > max_depth:
        raise FormatError(f"{where}: invalid JSON (nested too deeply: more than {max_depth} levels)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"{where}: invalid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except RecursionError:
        raise FormatError(f"{where}: invalid JSON (nested too deeply)") from None
    except ValueError as exc:  # e.g. an integer literal over sys.get_int_max_str_digits()
        raise FormatError(f"{where}: invalid JSON ({exc})") from None
