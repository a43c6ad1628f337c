"""``nki.typing``: the tensor annotations kernels write in signatures and assignments.

``in_tile: tensor[128, 512] = nl.load(x)`` (the average-pool tutorial) only annotates: Python evaluates
the subscript and nothing checks it, as in NKI. ``tensor[...]`` returns an ``Annotation`` that keeps the
shape (and dtype, when given) for anyone who wants to read it.
"""
from __future__ import annotations

from dataclasses import dataclass

from .tensor import NkiTensor


@dataclass(frozen=True)
class Annotation:
    """``tensor[shape...]`` or ``tensor[shape..., dtype]``: an annotation, never a runtime check."""
    kind: str
    params: tuple


class _Subscriptable:
    def __init__(self, kind: str):
        self.kind = kind

    def __getitem__(self, params) -> Annotation:
        return Annotation(self.kind, params if isinstance(params, tuple) else (params,))

    def __repr__(self) -> str:
        return f"nki.typing.{self.kind}"


tensor = _Subscriptable("tensor")
mutable_tensor = _Subscriptable("mutable_tensor")
scalar = _Subscriptable("scalar")

__all__ = ["tensor", "mutable_tensor", "scalar", "NkiTensor", "Annotation"]
