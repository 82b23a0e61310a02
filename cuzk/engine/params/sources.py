"""Where one circuit's proving key comes from: a bellperson .params file, or a key in memory.

The SRS manager (tiers.py) opens a source when a circuit first needs its key;
`decoded_bytes` is what the key's bases take once decoded (the hot tier's size).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Callable

from cuzk.formats.bellperson import open_params
from cuzk.groth16.keys import ProvingKey

from .check_stamps import CheckStamps


def decoded_bytes(pk: ProvingKey) -> int:
    """Bytes of the base vectors once decoded (affine G1 = 2 coordinates, G2 = 4)."""
    g1 = 2 * pk.curve.fq.limbs * 8
    n_h = pk.domain_size - 1 if pk.h_convention == "bellperson" else pk.domain_size
    return (n_h + pk.num_aux + len(pk.a_vars) + len(pk.b_vars)) * g1 + len(pk.b_vars) * 2 * g1


class ParamSource(ABC):
    """Where one circuit's parameters come from."""

    description = ""

    @abstractmethod
    def open(self) -> ProvingKey:
        """The proving key with lazily decoded base vectors (cheap when possible)."""

    def decoded_bytes(self, pk: ProvingKey) -> int:
        return decoded_bytes(pk)

    def missing(self) -> str | None:
        """Why the parameters cannot be had (a file that is not there), else None: asked at submit, so
        a job whose parameters are missing is refused then instead of failing once it reaches them."""
        return None


class BellpersonParams(ParamSource):
    """A bellperson .params file, mapped and decoded vector by vector on demand."""

    def __init__(self, path, compiled: Callable, checked: bool = True):
        self.path = path
        self.compiled = compiled  # () -> CompiledCircuit: the file's vectors are checked against it
        self.checked = checked  # every point, once per file (check_stamps.py)
        self.description = str(path)

    def missing(self) -> str | None:
        return None if Path(self.path).is_file() else f"parameters not found: {self.path}"

    def open(self) -> ProvingKey:
        return open_params(self.path, self.compiled(), checked=self.checked,
                           stamps=CheckStamps() if self.checked else None)


class LoadedParams(ParamSource):
    """A key already in memory (library use, tests): always resident."""

    def __init__(self, pk: ProvingKey, description: str = "in memory"):
        self.pk = pk
        self.description = description

    def open(self) -> ProvingKey:
        return self.pk
