"""16-bit <-> 8-bit fixed-point helpers (okk.h; no vendor prose, semantics pinned by C-model probes,
docs/okk.md part two): split a 2N int16 tensor into its high / low bytes as a 4N 8-bit tensor, and the
16-bit x 8-bit multiplies built on them.

Packing as in :mod:`bdc_fixed_point`: element n of a 16-bit tensor is lane n % 2 of 32-bit word n // 2,
of an 8-bit tensor lane n % 4 of word n // 4; strides are in 32-bit words of those packed tensors.
"""
from __future__ import annotations

import numpy as np

from . import cost, rules
from ..core.errors import ConstraintError
from .bdc_fixed_point import FIX8B, FIX8B_FACTOR, Packed, _call, _rshift, fix8b_cycles, round_shift
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


# mul_type_t (okk.h): bit 0 src0 (the 16-bit operand) signed, bit 1 src1 signed, bit 2 dst signed
MUL_TYPES = {7: "S16_MUL_S8_TO_S16", 6: "U16_MUL_S8_TO_S16", 0: "U16_MUL_U8_TO_U16", 5: "S16_MUL_U8_TO_S16"}


def _mul_type(api, mul_type):
    if isinstance(mul_type, bool) or not isinstance(mul_type, (int, np.integer)) or int(mul_type) not in MUL_TYPES:
        raise ConstraintError(api, "mul_type", "a mul_type_t value (S16_MUL_S8_TO_S16=7, U16_MUL_S8_TO_S16=6, "
                              "U16_MUL_U8_TO_U16=0, S16_MUL_U8_TO_S16=5)", mul_type)
    t = int(mul_type)
    return bool(t & 1), bool(t & 2), bool(t & 4)


def okk_bdc_fixed_point_packed_16bit_mul_8bit(dst_addr, src0_high_addr, src0_low_addr, src1_addr, shape,
                                              dst_stride=None, src0_high_stride=None, src0_low_stride=None,
                                              src1_stride=None, mul_type=7, rshift=0):
    """dst (2N, 16-bit) = round_shift(src0 * src1, rshift), saturated, where src0 = high * 256 + low is
    given as its high byte (4N, 8-bit, signed iff mul_type says src0 is) and low byte (4N, unsigned) and
    src1 is 4N 8-bit. The C-model issues two FIX8B instructions: dst = high * src1 (exact in 16 bits for
    every mul_type), then the mac dst = ((dst << 8) + low * src1 + round) >> rshift, so the result is
    the exact product, rounded once."""
    api = "okk_bdc_fixed_point_packed_16bit_mul_8bit"
    s0_signed, s1_signed, d_signed = _mul_type(api, mul_type)
    r = _rshift(api, rshift)
    dev = current()
    s = as_dim4(api, "shape", shape)
    rules.shape_bdc(api, s)
    addrs = {"dst_addr": dst_addr, "src0_high_addr": src0_high_addr, "src0_low_addr": src0_low_addr,
             "src1_addr": src1_addr}
    for name, a in addrs.items():
        rules.local_addr(api, name, a)
        rules.aligned(api, name, a, 4, f"{name} is divisible by 4 (and preferred by 128)")
    rules.same_npu(api, **addrs)
    hi = Packed(dev, api, "src0_high_addr", src0_high_addr, s, src0_high_stride, 8, s0_signed, opd0=True)
    lo = Packed(dev, api, "src0_low_addr", src0_low_addr, s, src0_low_stride, 8, False, opd0=True)
    s1 = Packed(dev, api, "src1_addr", src1_addr, s, src1_stride, 8, s1_signed)
    out = Packed(dev, api, "dst_addr", dst_addr, s, dst_stride, 16, d_signed)
    if int(mul_type) == 5:
        # the C-model issues no instruction and writes nothing for S16_MUL_U8_TO_S16 here (probes);
        # that product has its own function, s16_mul_u8_to_s16. Strict mode says so instead.
        from ..core.options import options
        if options().strict:
            raise ConstraintError(api, "mul_type", "not S16_MUL_U8_TO_S16 (the C-model does nothing for it; "
                                  "use okk_bdc_fixed_point_packed_s16_mul_u8_to_s16)", mul_type)
        return
    h, lw, y = hi.read(), lo.read(), s1.read()
    out.write(h * y)
    q = int(dst_addr) // LANE
    el = s.n * s.c * s.h * s.w
    dev.issue(BDC, api, FIX8B, fix8b_cycles("mul", q, s, 8, 16), reads=hi.footprints + s1.footprints,
              writes=out.footprints, elements=el)
    out.write(round_shift((out.read() << 8) + lw * y, r))
    dev.issue(BDC, api, FIX8B, fix8b_cycles("mac", q, s, 8, 16), reads=lo.footprints + s1.footprints + out.footprints,
              writes=out.footprints, elements=el)


# s16_mul_u8_to_s16's instruction sequence in the C-model (16 BDC instructions): FIX8B factors per
# ceil(N/4) block, "T" a 32-bit TENSOR_ARITH over the 2N words (2 cycles per block)
S16_MUL_U8_SEQUENCE = (3, 2, 3, 4, "T", 4, 2, 4, 2, "T", 3, 3, "T", "T", 3, 3)


def okk_bdc_fixed_point_packed_s16_mul_u8_to_s16(dst_addr, src0_addr, src1_addr, work_addr, work_high_addr,
                                                 work_low_addr, shape, dst_stride=None, src0_stride=None,
                                                 src1_stride=None, work_stride=None, work_high_stride=None,
                                                 work_low_stride=None, rshift=0):
    """dst (2N, int16) = src0 (2N, int16) * src1 (4N, uint8), in sign-magnitude as the C-model computes it:
    m = min(|src0|, 32767) (a saturating abs), p = min((m * src1 + round) >> rshift, 32767), dst = sign(src0) * p
    (so negative results saturate to -32767 and round half away from zero). The work tensors keep
    the C-model's leftovers: work_high / work_low (4N, 8-bit) the high / low bytes of m, work (2N, 16-bit)
    p where src0 < 0 and 0 elsewhere; for odd N, see the dummy-lane note below."""
    api = "okk_bdc_fixed_point_packed_s16_mul_u8_to_s16"
    r = _rshift(api, rshift)
    dev = current()
    s = as_dim4(api, "shape", shape)
    rules.shape_bdc(api, s)
    addrs = {"dst_addr": dst_addr, "src0_addr": src0_addr, "src1_addr": src1_addr, "work_addr": work_addr,
             "work_high_addr": work_high_addr, "work_low_addr": work_low_addr}
    for name, a in addrs.items():
        rules.local_addr(api, name, a)
        rules.aligned(api, name, a, 4, f"{name} is divisible by 4 (and preferred by 128)")
    rules.same_npu(api, **addrs)
    x = Packed(dev, api, "src0_addr", src0_addr, s, src0_stride, 16, True, opd0=True)
    y = Packed(dev, api, "src1_addr", src1_addr, s, src1_stride, 8, False)
    work = Packed(dev, api, "work_addr", work_addr, s, work_stride, 16, True)
    hi = Packed(dev, api, "work_high_addr", work_high_addr, s, work_high_stride, 8, False)
    lo = Packed(dev, api, "work_low_addr", work_low_addr, s, work_low_stride, 8, False)
    out = Packed(dev, api, "dst_addr", dst_addr, s, dst_stride, 16, True)
    xv, yv = x.read(), y.read()
    # with an N stride of 0, the magnitude steps read src0 as their first operand (element 0 broadcast)
    # but the sign selection reads it as a second operand (word broadcast): C-model probes
    sign_src = Packed(dev, api, "src0_addr", src0_addr, s, src0_stride, 16, True).read()
    old_dst = out._raw() if s.n % 2 else None      # only a partial last word has a dummy lane
    m = np.minimum(np.abs(xv), 32767)
    p = np.minimum(round_shift(m * yv, r), 32767)
    hi.write(m >> 8, wrap=True)
    lo.write(m & 0xFF, wrap=True)
    work.write(np.where(sign_src < 0, p, 0))
    out.write(np.where(sign_src < 0, -p, p))
    if s.n % 2:
        # the C-model's whole-word TENSOR_ARITH steps leave, in the dummy lane of the last 2N word of
        # both work and dst, the low byte of dst's old dummy lane (high byte zeroed); probes
        dummy = old_dst[-1] & np.uint32(0x00FF0000)
        for t in (work, out):
            raw = t._raw()
            raw[-1] = (raw[-1] & np.uint32(0xFFFF)) | dummy
            t.t.write(raw)
    q = int(dst_addr) // LANE
    words = dim4(-(-s.n // 2), s.c, s.h, s.w)
    blocks4 = cost.bdc_blocks(q, -(-s.n // 4), s.c, s.h, s.w)
    reads = x.footprints + y.footprints
    writes = out.footprints + work.footprints + hi.footprints + lo.footprints
    el = s.n * s.c * s.h * s.w
    for step in S16_MUL_U8_SEQUENCE:
        if step == "T":
            dev.issue(BDC, api, cost.TENSOR_ARITH, cost.bdc_blocks(q, *words.tuple()) * cost.ARITH_SIMPLE,
                      reads=reads, writes=writes, elements=el)
        else:
            dev.issue(BDC, api, FIX8B, blocks4 * step, reads=reads, writes=writes, elements=el)


FIX8B_FACTOR.update({("16bit_split_high_8bit", 16, 8): 4, ("16bit_split_low_8bit", 16, 8): 4})

__all__ = [n for n in dir() if n.startswith("okk_")]
