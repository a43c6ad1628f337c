"""Whole-tensor init check and mark for okk tensors, on the core's byte boxes.

An okk tensor (layout.LocalTensor, SystemTensor) is one or more core TensorViews: a local tensor whose
channels wrap past NPU 63 is one view per row run. The mechanism (merged byte boxes checked with one
``min`` and marked with one ``fill``, and the "known fully written at memory generation g" flag) is the
core's (core.view.TensorView.is_fully_written / mark_written); this module only applies it to every view
of a tensor.
"""
from __future__ import annotations

import numpy as np

from ..core.view import TensorView, byte_box as _byte_box


def byte_box(view: TensorView) -> tuple[tuple, tuple]:
    """The view's bytes as (shape, strides) of uint8, size-1 axes dropped and contiguous axes merged."""
    return _byte_box(view.shape, view.strides, view.dtype.itemsize)


def init_box(view: TensorView) -> np.ndarray:
    """A uint8 view of the init bytes the view covers (writable: fill(1) marks them written)."""
    return view.init_box()


def _views(t) -> list:
    pieces = getattr(t, "pieces", None)          # LocalTensor: (c_lo, c_hi, view) per row run
    return [t.view] if pieces is None else [v for _, _, v in pieces]


def is_written(t) -> bool:
    """Every byte of tensor ``t`` written? (Each view remembers it until its memory's generation moves.)"""
    for v in _views(t):
        if not v.is_fully_written():
            return False
    return True


def mark_tensor(t) -> None:
    """Mark every byte of tensor ``t`` written (a view known written costs nothing)."""
    for v in _views(t):
        v.mark_written()
