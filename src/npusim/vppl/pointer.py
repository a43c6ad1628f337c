"""Pointer variables: an address in a byte-addressed memory (data memory DM, or image buffer A/B).

The seed's image, BLAS and DNN operators take pointer variables; ``use_image()`` sets one to an image
buffer, whose row step the pointer carries ("転送元画像バッファ領域の横幅は、該当のポインタの保持する
ステップ幅から求められる"). Operands are core TensorViews, so every access is bounds-checked.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.memory import Memory
from ..core.view import TensorView


@dataclass(frozen=True)
class Pointer:
    memory: Memory
    address: int                 # byte offset in ``memory``
    step: int = 0                # bytes per row (image buffers); 0 when not an image
    name: str = ""

    def view(self, dtype, shape, offset: int = 0, api: str | None = None) -> TensorView:
        """A bounds-checked TensorView of ``shape`` elements of ``dtype`` at this address (+offset bytes)."""
        return TensorView(self.memory, self.address + offset, tuple(np.atleast_1d(shape)), None,
                          np.dtype(dtype).name, api=api)

    def __add__(self, nbytes: int) -> "Pointer":
        return Pointer(self.memory, self.address + int(nbytes), self.step, self.name)

    def __repr__(self) -> str:
        step = f", step {self.step}" if self.step else ""
        return f"Pointer({self.name or '?'} -> {self.memory.name}+{self.address:#x}{step})"
