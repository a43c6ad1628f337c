"""16-bit <-> 8-bit fixed-point helpers (okk.h; no vendor prose, semantics pinned by C-model probes,
docs/okk.md part two): split a 2N int16 tensor into its high / low bytes as a 4N 8-bit tensor, and the
16-bit x 8-bit multiplies built on them.

Packing as in :mod:`bdc_fixed_point`: element n of a 16-bit tensor is lane n % 2 of 32-bit word n // 2,
of an 8-bit tensor lane n % 4 of word n // 4; strides are in 32-bit words of those packed tensors.
"""
from __future__ import annotations

import numpy as np

from . import cost, rules
from .bdc_fixed_point import FIX8B_FACTOR, _call
from .device import BDC, current
from .layout import LANE, LocalTensor
from .types import as_dim4, dim4

_U16, _U8 = (16, False), (8, False)


def okk_bdc_fixed_point_packed_16bit_split_high_8bit(dst_addr, src_addr, shape, dst_stride=None, src_stride=None):
    """dst (4N, 8-bit) element n = the high byte of src (2N, 16-bit) element n: one FIX8B instruction."""
    _call("okk_bdc_fixed_point_packed_16bit_split_high_8bit", shape, [("src_addr", src_addr, _U16)],
          ("dst_addr", dst_addr, _U8), lambda x: x >> 8,
          {"dst_addr": dst_stride, "src_addr": src_stride}, wrap=True)


def _low_to_work(api, dst_addr, src_addr, work_addr, shape, src_stride, work_stride):
    """work (2N, 16-bit) = src & 0x00FF per element: one 32-bit TENSOR_ARITH AND over the packed words
    (so the dummy lane of a partial last word is written too, as the C-model does)."""
    dev = current()
    s = as_dim4(api, "shape", shape)
    rules.shape_bdc(api, s)
    for name, a in (("dst_addr", dst_addr), ("src_addr", src_addr), ("work_addr", work_addr)):
        rules.local_addr(api, name, a)
        rules.aligned(api, name, a, 4, f"{name} is divisible by 4 (and preferred by 128)")
    rules.same_npu(api, dst_addr=dst_addr, src_addr=src_addr, work_addr=work_addr)
    words = dim4(-(-s.n // 2), s.c, s.h, s.w)
    src = LocalTensor(dev.local, api, "src_addr", src_addr, words, src_stride, np.uint32, 4)
    work = LocalTensor(dev.local, api, "work_addr", work_addr, words, work_stride, np.uint32, 4)
    work.write(src.read() & np.uint32(0x00FF00FF))
    dev.issue(BDC, api, cost.TENSOR_ARITH,
              cost.bdc_blocks(int(work_addr) // LANE, *words.tuple()) * cost.ARITH_SIMPLE,
              reads=src.footprints, writes=work.footprints, elements=s.n * s.c * s.h * s.w)


def okk_bdc_fixed_point_packed_16bit_split_low_8bit(dst_addr, src_addr, work_addr, shape, dst_stride=None,
                                                     src_stride=None, work_stride=None):
    """dst (4N, 8-bit) element n = the low byte of src element n, through work (2N, 16-bit) = src & 0xFF."""
    api = "okk_bdc_fixed_point_packed_16bit_split_low_8bit"
    _low_to_work(api, dst_addr, src_addr, work_addr, shape, src_stride, work_stride)
    _call(api, shape, [("work_addr", work_addr, _U16)], ("dst_addr", dst_addr, _U8), lambda x: x,
          {"dst_addr": dst_stride, "work_addr": work_stride}, wrap=True)


FIX8B_FACTOR.update({("16bit_split_high_8bit", 16, 8): 4, ("16bit_split_low_8bit", 16, 8): 4})

__all__ = [n for n in dir() if n.startswith("okk_")]
