"""okk_bdc_int8_to_fp32 and okk_bdc_4N_int8_to_fp32: int8/uint8 to fp32 (exact), with the layouts and
the instruction sequence of Sophgo's C-model (differential probes, docs/okk.md, part two).

Layouts (``is_aligned_layout`` true / false):
- int8_to_fp32: the source is the (N, C, H, W) int8 tensor with one (n, c) plane every ALIGN(H*W, 128)
  bytes (128-byte aligned) / ALIGN(H*W, 4) bytes (compact, word aligned); dst fp32 aligned / compact.
- 4N_int8_to_fp32: the source is in 4N mode (reference §2.5): words (ceil(N/4), C, H, W) in the
  aligned / compact 32-bit layout, byte n % 4 of word (n // 4, c, h, w) holding element (n, c, h, w).
The work tensor ends as the C-model leaves it: the source's 32-bit words (the whole word tensor, the
bytes past H*W or N included) in the source's own layout (aligned / compact), XORed with 0x80808080
when signed (the C-model biases each byte by 128); checked byte for byte on the C-model.

Cost (TENSOR_ARITH, B(shape) = N * ceil((q + C)/64) * ceil(H*W/16)):
- int8_to_fp32: COPY x1 and 2 (signed) / 1 (unsigned) ops x2 on the word view (N, C, 1, ceil(H*W/4));
  one op x2 on (N, C, 1, ceil((H*W - k)/4)) for each byte k = 1..3 with H*W > k; then 4 ops x2 on
  (N, C, H, W) (3 when H*W == 1).
- 4N: COPY x1 and 2 (signed) / 1 (unsigned) ops x2 on (ceil(N/4), C, H, W); one op x2 on
  (ceil((N - k)/4), C, H, W) for each k = 1..3 with N > k; then 4 ops x2 on (N, C, H, W) (3 when N == 1).
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from . import cost, rules, spec
from .device import BDC, current
from .fp32 import F32
from .layout import LANE, LocalTensor, compact_stride
from .types import as_dim4, dim4

_ARITH = cost.TENSOR_ARITH


def _blocks(q, n, c, h, w):
    return cost.bdc_blocks(q, n, c, h, w)


def _bool(api, name, v):
    if not isinstance(v, (bool, int, np.integer)):
        raise ConstraintError(api, name, f"{name} is a bool", v)
    return bool(v)


def _setup(api, dst_addr, src_addr, work_addr, shape):
    dev = current()
    s = as_dim4(api, "shape", shape)
    rules.shape_bdc(api, s)
    addrs = {"dst_addr": dst_addr, "src_addr": src_addr, "work_addr": work_addr}
    for name, a in addrs.items():
        rules.local_addr(api, name, a)
        rules.aligned(api, name, a, 4, f"{name} is divisible by 4")
    rules.same_npu(api, **addrs)
    rules.work_distinct(api, work_addr, dst_addr, src_addr)
    return dev, s, int(dst_addr) // LANE


def _raw(t: LocalTensor) -> np.ndarray:
    n, c, h, w = t.shape
    parts = [v.array().reshape(n, hi - lo, h, w) for lo, hi, v in t.pieces]
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)


def _dst(dev, api, addr, s, q, aligned):
    st = None if aligned else compact_stride(None, q, s)
    return LocalTensor(dev.local, api, "dst_addr", addr, s, st, F32, 4)


def _work(dev, api, addr, s, q, aligned):
    st = None if aligned else compact_stride(None, q, s)
    return LocalTensor(dev.local, api, "work_addr", addr, s, st, np.uint32, 4)


def _write_work(wk: LocalTensor, words: np.ndarray, signed: bool) -> None:
    """work = the source words, byte-biased by 128 when signed (what the C-model's sequence leaves)."""
    wk.write(words ^ np.uint32(0x80808080) if signed else words)


def okk_bdc_int8_to_fp32(dst_addr, src_addr, work_addr, shape, is_signed, is_aligned_layout) -> None:
    """dst(fp32) = src(int8 or uint8), exactly."""
    api = "okk_bdc_int8_to_fp32"
    signed = _bool(api, "is_signed", is_signed)
    aligned = _bool(api, "is_aligned_layout", is_aligned_layout)
    dev, s, q = _setup(api, dst_addr, src_addr, work_addr, shape)
    n, c, h, w = s.tuple()
    hw = h * w
    plane = -(-hw // 128) * 128 if aligned else -(-hw // 4) * 4
    rows = -(-(q + c) // spec.NPU_NUM)
    src = LocalTensor(dev.local, api, "src_addr", src_addr, dim4(n, c, 1, hw), dim4(rows * plane, plane, hw, 1),
                      np.int8 if signed else np.uint8, 1)
    dst = _dst(dev, api, dst_addr, s, q, aligned)
    wsh = dim4(n, c, 1, -(-hw // 4))
    wk = _work(dev, api, work_addr, wsh, q, aligned)
    src_words = LocalTensor(dev.local, api, "src_addr", src_addr, wsh, None if aligned else compact_stride(None, q, wsh),
                            np.uint32, 4)
    dst.write(src.read().reshape(n, c, h, w).astype(F32))
    _write_work(wk, _raw(src_words), signed)
    words = _blocks(q, n, c, 1, -(-hw // 4))
    full = _blocks(q, n, c, h, w)
    fp = [f for t in (src,) for f in t.footprints]
    seq = [(words, 1)] + [(words, 2)] * (2 if signed else 1)
    seq += [(_blocks(q, n, c, 1, -(-(hw - k) // 4)), 2) for k in (1, 2, 3) if hw > k]
    seq += [(full, 2)] * (3 if hw == 1 else 4)
    _emit(dev, api, seq, fp, wk.footprints + dst.footprints, n * c * hw)


def okk_bdc_4N_int8_to_fp32(dst_addr, src_addr, work_addr, shape, is_signed, is_aligned_layout) -> None:
    """dst(fp32) = src(int8 or uint8 in 4N mode), exactly."""
    api = "okk_bdc_4N_int8_to_fp32"
    signed = _bool(api, "is_signed", is_signed)
    aligned = _bool(api, "is_aligned_layout", is_aligned_layout)
    dev, s, q = _setup(api, dst_addr, src_addr, work_addr, shape)
    n, c, h, w = s.tuple()
    n4 = -(-n // 4)
    wsh = dim4(n4, c, h, w)
    wst = None if aligned else compact_stride(None, q, wsh)
    words = LocalTensor(dev.local, api, "src_addr", src_addr, wsh, wst, np.uint32, 4)
    # the dummies of a partial last group of four need not be initialised: read them raw
    raw = words.read() if n % 4 == 0 else _raw(words)
    b = np.ascontiguousarray(raw).view(np.int8 if signed else np.uint8).reshape(n4, c, h, w, 4)
    vals = b.transpose(0, 4, 1, 2, 3).reshape(n4 * 4, c, h, w)[:n]
    dst = _dst(dev, api, dst_addr, s, q, aligned)
    wk = _work(dev, api, work_addr, wsh, q, aligned)
    dst.write(vals.astype(F32))
    _write_work(wk, np.ascontiguousarray(raw), signed)
    g = _blocks(q, n4, c, h, w)
    seq = [(g, 1)] + [(g, 2)] * (2 if signed else 1)
    seq += [(_blocks(q, -(-(n - k) // 4), c, h, w), 2) for k in (1, 2, 3) if n > k]
    seq += [(_blocks(q, n, c, h, w), 2)] * (3 if n == 1 else 4)
    _emit(dev, api, seq, words.footprints, wk.footprints + dst.footprints, n * c * h * w)


def _emit(dev, api, seq, reads, writes, elements):
    for blocks, factor in seq:
        dev.issue(BDC, api, _ARITH, blocks * factor, reads=reads, writes=writes, elements=elements)


__all__ = ["okk_bdc_int8_to_fp32", "okk_bdc_4N_int8_to_fp32"]
