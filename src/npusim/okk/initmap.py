"""Whole-tensor init check and mark for okk tensors, on the core's byte boxes.

An okk tensor (layout.LocalTensor, SystemTensor) is one or more core TensorViews: a local tensor whose
channels wrap past NPU 63 is one view per row run. The mechanism (merged byte boxes checked with one
``min`` and marked with one ``fill``, and the "known fully written at memory generation g" flag) is the
core's (core.view.TensorView.is_fully_written / mark_written); this module only applies it to every view
of a tensor.
"""
from __future__ import annotations


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
