"""A count-form DataCopy between two dense (contiguous) byte views, without TensorView.read / write's
array round trip: one slice assignment of the data bytes, with the core's init check and mark around it.
When a source byte was never written, the copy goes through the view's own ``read`` (which reports it
and gives poison in a copy), so errors, warnings and poisoning are exactly the core's.
"""
from __future__ import annotations

from ..core.options import options
from ..core.view import TensorView


def copy_dense(sv: TensorView, dv: TensorView, api: str) -> None:
    """``dv.write(sv.read(api))`` for two contiguous byte views of the same size (a count-form DataCopy)."""
    n = sv.nbytes
    track = options().track_init
    if track and not sv.is_fully_written():
        dv.write(sv.read(api))                     # raises, or warns: the destination gets poison
        return
    dv.memory.data[dv.offset:dv.offset + n] = sv.memory.data[sv.offset:sv.offset + n]
    if track:
        dv.mark_written()
