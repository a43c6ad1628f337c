"""``nki.typing`` (``import nki.typing as nt``): kernel argument annotations, kept minimal.

nki-library annotates kernel arguments with ``nt.tensor`` and ``nt.mutable_tensor`` (an HBM tensor the
kernel writes in place); older kernels subscript them (``nt.tensor[[128, 512], nl.float32]``). Neither
is checked: annotations do not change what a kernel does. (The legacy ``neuronxcc.nki.typing`` may grow
its own module elsewhere; this one only serves the current API.)
"""
from __future__ import annotations

from .tensor import NkiTensor


class _Annotation:
    """An annotation that may be subscripted with a shape and dtype; it stands for an NkiTensor."""

    def __init__(self, name: str):
        self.name = name

    def __getitem__(self, spec):
        return self

    def __instancecheck__(self, obj) -> bool:
        return isinstance(obj, NkiTensor)

    def __repr__(self) -> str:
        return f"nki.typing.{self.name}"


tensor = _Annotation("tensor")
mutable_tensor = _Annotation("mutable_tensor")

__all__ = ["tensor", "mutable_tensor"]
