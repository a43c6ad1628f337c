"""Whole-tensor init-map check and mark in one numpy op per piece (the GDMA fast path).

The core's TensorView checks "every byte written" with a uint32 view and a reduction, and marks with a
uint32 fill, one element (4 bytes) at a time. For a big strided tensor that is as much memory traffic
as the copy itself. Here a tensor's bytes are described as a byte box with its contiguous runs merged
(an (8, 64, 64, 64) fp32 local tensor is 512 runs of 16 KiB), and the init bytes of that box are
checked with one ``min`` and marked with one ``fill``. Init bytes are 0 or 1 (Memory: 1 where written),
so ``min() >= 1`` is exactly "no never-written byte". The box views are built once per tensor geometry
(tensors are cached by geometry on the Device).
"""
from __future__ import annotations

import numpy as np

from ..core.view import TensorView


def byte_box(view: TensorView) -> tuple[tuple, tuple]:
    """The view's bytes as (shape, strides) of uint8, size-1 axes dropped and contiguous axes merged."""
    dims = [(n, s) for n, s in zip(view.shape, view.strides) if n != 1]
    dims.append((view.dtype.itemsize, 1))
    merged = [dims[-1]]
    for n, s in reversed(dims[:-1]):
        inner_n, inner_s = merged[-1]
        if s == inner_n * inner_s:
            merged[-1] = (n * inner_n, inner_s)
        else:
            merged.append((n, s))
    merged.reverse()
    return tuple(n for n, _ in merged), tuple(s for _, s in merged)


def init_box(view: TensorView) -> np.ndarray:
    """A uint8 view of the init bytes the view covers (writable: fill(1) marks them written)."""
    shape, strides = byte_box(view)
    return np.ndarray(shape, np.uint8, buffer=view.memory.init, offset=view.offset, strides=strides)


def data_box(view: TensorView) -> np.ndarray:
    """A uint8 view of the data bytes the view covers, in the same element order as ``init_box``."""
    shape, strides = byte_box(view)
    return np.ndarray(shape, np.uint8, buffer=view.memory.data, offset=view.offset, strides=strides)


def is_written(t) -> bool:
    """Every byte of tensor ``t`` (a LocalTensor/SystemTensor) written? Remembered until the memory's
    init map may have lost bytes (DeviceMemory.generation moves)."""
    gen = getattr(t.memory, "generation", None)
    if gen is not None and t.written_gen == gen:
        return True
    if not all_written(t.init_boxes()):
        return False
    t.written_gen = gen
    return True


def mark_tensor(t) -> None:
    """Mark every byte of tensor ``t`` written (nothing to do when it is known written)."""
    gen = getattr(t.memory, "generation", None)
    if gen is None or t.written_gen != gen:
        mark(t.init_boxes())
        t.written_gen = gen


def all_written(boxes) -> bool:
    """True when every init byte of every box is 1 (empty boxes count as written)."""
    for b in boxes:
        if b.size and b.min() == 0:
            return False
    return True


def mark(boxes) -> None:
    for b in boxes:
        b.fill(1)
