"""DNN dot operators (seed 003, DNN向け演算子) on F16Q12 maps in data memory.

Maps: a channel of in_h x in_w elements is stored row-major and contiguous (pitch = width); several
channels follow each other. Arithmetic (docs/vppl.md (part two), "Fixed-point arithmetic"):
* convolution: products F16Q12 x F16Q12 = Q24, summed exactly; a partial result between input channels
  is F32Q24 (saturated to int32); the last input channel (and NP1) rounds half up to F16Q12, saturated;
* pooling: max over the window (exact; q-agnostic, which is why the seed needs no q);
* LCN, softmax, conv32to16: see their functions.
The target vector is a work area (alloc_vector); it ends holding the last output row / block.
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import cast
from ..core.errors import ConstraintError
from .dnn_common import (Q_DNN, box_sum, check_q, div_round, isqrt, one_of, out_size, positive, windows)
from .fixed_point import sat16, sat32, shift_round
from .pointers import load, store
from .readings_part_two import readings
from .work_area import check_allocated, leave

UNIT = 16      # DNN_relu / DNN_conv32to16: "4x4要素を1処理単位"


# ------------------------------------------------------------------------------------------ pooling

def pooling_geometry(k: int, s: int, in_w: int, in_h: int):
    """(pad before, out_w, out_h). Kernel 2 stride 2 has no border ("自動的に枠外なしの形式"); the others
    take a border of (k-1)//2 before (and what the window needs after) so that out = ceil(in / s)."""
    if k == 2 and s == 2:
        return 0, in_w // 2, in_h // 2
    return (k - 1) // 2, -(-in_w // s), -(-in_h // s)


def DNN_poolingLayer(m, row, t, k, s, in_w, in_h, out_w, out_h, work, p_in, p_out):
    api = row.name
    one_of(api, "kernel size", k, (2, 3, 5, 7))
    one_of(api, "stride", s, (1, 2))
    pb, ow, oh = pooling_geometry(k, s, max(in_w, 0), max(in_h, 0))
    out_size(api, in_w, in_h, out_w, out_h, ow, oh,
             "in // 2 (kernel 2, stride 2, no border)" if (k, s) == (2, 2) else "ceil(in / stride)")
    check_allocated(api, "target", t)
    check_allocated(api, "work vector", work)
    x = load(api, "input pointer", p_in, np.int16, in_w * in_h).reshape(in_h, in_w)
    lo = np.int32(-(1 << 16))                  # below every F16 value: border cells never win the max
    need_h, need_w = (oh - 1) * s + k, (ow - 1) * s + k
    xp = np.full((max(need_h, pb + in_h), max(need_w, pb + in_w)), lo, np.int32)
    xp[pb:pb + in_h, pb:pb + in_w] = x
    if readings(m).pooling == "max":
        out = np.full((oh, ow), lo, np.int32)
        for _, _, v in windows(xp, k, s, oh, ow):
            np.maximum(out, v, out=out)
        y = out.astype(np.int16)
    else:                                      # average of the in-image cells, rounded half up
        inside = xp != lo
        vals = np.where(inside, xp, 0).astype(np.int64)
        total = np.zeros((oh, ow), np.int64)
        count = np.zeros((oh, ow), np.int64)
        for (_, _, v), (_, _, c) in zip(windows(vals, k, s, oh, ow), windows(inside, k, s, oh, ow)):
            total += v
            count += c
        y = sat16(div_round(total, count))
    store(api, "output pointer", p_out, y)
    leave(work, x[-1])
    leave(t, y[-1])


# ------------------------------------------------------------------------------------------ convolution

def _conv(m, api, t, k, s, pad, in_w, in_h, out_w, out_h, work, p_in, p_coef, p_prev, p_out, phase, q,
          immediate=False):
    check_q(api, q)
    one_of(api, "phase", phase, (0, 1, 2))
    check_allocated(api, "target", t)
    check_allocated(api, "work vector", work)
    x = load(api, "input pointer", p_in, np.int16, in_w * in_h).reshape(in_h, in_w)
    w = load(api, "coefficient pointer", p_coef, np.int16, k * k).reshape(k, k).astype(np.int64)
    xp = np.zeros((in_h + 2 * pad, in_w + 2 * pad), np.int64)
    xp[pad:pad + in_h, pad:pad + in_w] = x
    acc = np.zeros((out_h, out_w), np.int64)
    for dy, dx, v in windows(xp, k, s, out_h, out_w):
        acc += w[dy, dx] * v
    if immediate or phase == 0:                # the bias: one F16Q12 value, to Q24
        acc += np.int64(load(api, "bias/previous pointer", p_prev, np.int16, 1)[0]) << q
    else:                                      # the previous partial result, F32Q24
        acc += load(api, "bias/previous pointer", p_prev, np.int32, out_w * out_h).reshape(out_h, out_w)
    if immediate or phase == 2:
        y = sat16(shift_round(acc, q, readings(m).shift_rounding))
    else:
        y = sat32(acc)
    store(api, "output pointer", p_out, y)
    leave(work, x[-1])
    leave(t, y[-1])


def DNN_convolutionLayer(m, row, t, k, s, in_w, in_h, out_w, out_h, work, p_in, p_coef, p_prev, p_out, phase, q):
    api = row.name
    one_of(api, "kernel size", k, (3, 5))
    one_of(api, "stride", s, (1, 2))
    out_size(api, in_w, in_h, out_w, out_h, -(-in_w // s), -(-in_h // s),
             "ceil(in / stride) ((k-1)/2 padding)")
    _conv(m, api, t, k, s, (k - 1) // 2, in_w, in_h, out_w, out_h, work, p_in, p_coef, p_prev, p_out, phase, q)


def _np(api, k, s, in_w, in_h, out_w, out_h):
    one_of(api, "kernel size", k, (5,))
    one_of(api, "stride", s, (1,))
    out_size(api, in_w, in_h, out_w, out_h, in_w - k + 1, in_h - k + 1, "in - (kernel - 1) (no padding)")


def DNN_convolutionLayerNPN(m, row, t, k, s, in_w, in_h, out_w, out_h, work, p_in, p_coef, p_prev, p_out, phase,
                            q):
    _np(row.name, k, s, in_w, in_h, out_w, out_h)
    _conv(m, row.name, t, k, 1, 0, in_w, in_h, out_w, out_h, work, p_in, p_coef, p_prev, p_out, phase, q)


def DNN_convolutionLayerNP1(m, row, t, k, s, in_w, in_h, out_w, out_h, work, p_in, p_coef, p_prev, p_out, phase,
                            q):
    _np(row.name, k, s, in_w, in_h, out_w, out_h)
    _conv(m, row.name, t, k, 1, 0, in_w, in_h, out_w, out_h, work, p_in, p_coef, p_prev, p_out, phase, q,
          immediate=True)


# ------------------------------------------------------------------------------------------ LCN

def lcn_fixed(x: np.ndarray, k: int, q: int):
    """Local contrast normalisation of (C, H, W) F16Qq raw values (Jarrett et al. 2009, box window):
    mean over the k x k x C window (zero border, divided by k*k*C), v = x - mean; sigma = floor sqrt of
    the window mean of v^2; y = v / max(sigma, mean(sigma), 1 LSB), rounded half up, saturated.
    Returns (y int16, window sums S1, S2) in integer arithmetic."""
    c = x.shape[0]
    n = np.int64(k * k * c)
    xi = x.astype(np.int64)
    s1 = box_sum(xi.sum(0), k)
    v = xi - div_round(s1, n)[None]
    s2 = box_sum((v * v).sum(0), k)                   # Q2q
    sigma = isqrt(s2 // n)                            # Qq, floor
    d = np.maximum(np.maximum(sigma, sigma.sum() // sigma.size), 1)
    y = sat16(div_round(v << q, d[None]))
    return y, s1, s2


def DNN_localContrastNormalizationLayer(m, row, t, k, in_w, in_h, out_w, out_h, work, acc1, acc2, p_in, p_out,
                                        channels, q):
    api = row.name
    one_of(api, "kernel size", k, (5,))
    check_q(api, q)
    out_size(api, in_w, in_h, out_w, out_h, in_w, in_h, "in ((k-1)/2 border)")
    positive(api, "channels", channels)
    for name, v in (("target", t), ("work vector", work), ("accumulation vector 1", acc1),
                    ("accumulation vector 2", acc2)):
        check_allocated(api, name, v)
    x = load(api, "input pointer", p_in, np.int16, channels * in_h * in_w).reshape(channels, in_h, in_w)
    y, s1, s2 = lcn_fixed(x, k, q)
    store(api, "output pointer", p_out, y)
    leave(work, x[-1, -1])
    leave(acc1, sat32(s1[-1]))
    leave(acc2, sat32(s2[-1]))
    leave(t, y[-1, -1])


# ------------------------------------------------------------------------------------------ element-wise

def DNN_relu(m, row, t, p, work, units, q):
    api = row.name
    positive(api, "units", units)
    check_q(api, q)
    check_allocated(api, "target", t)
    check_allocated(api, "work vector", work)
    x = load(api, "pointer", p, np.int16, units * UNIT)
    np.maximum(x, 0, out=x)
    store(api, "pointer", p, x)
    leave(work, x[-UNIT:])
    leave(t, x[-UNIT:])


def _softmax(api, t, p_in, p_out, n, q, in_q):
    positive(api, "elements", n)
    check_q(api, q)
    check_allocated(api, "target", t)
    x = load(api, "input pointer", p_in, np.int16, n).astype(np.float64) * 2.0 ** -in_q
    e = np.exp(x - x.max())
    # float64 exp and sum, rounded to nearest into F32Q16 (reference A7.16): the hardware's exp table is
    # unpublished; 1 LSB of Q16 is the documented bound.
    y = cast(e / e.sum() * 65536.0, "int32")                # round to nearest even, saturate
    store(api, "output pointer", p_out, y)
    leave(t, y)


def DNN_softmaxN(m, row, t, p_in, p_out, n, q):
    _softmax(row.name, t, p_in, p_out, n, q, Q_DNN)           # "入力はF16Q12固定小数点型"


def DNN_softmax(m, row, t, p_in, p_out, n, q):
    _softmax(row.name, t, p_in, p_out, n, q, 8)               # "入力はF16Q8 ... 引数Q値は12"


def DNN_conv32to16(m, row, t, p_in, p_out, work, units, q32, q16):
    api = row.name
    positive(api, "units", units)
    if not 0 <= q32 <= 31:
        raise ConstraintError(api, "F32 q", "0 <= q <= 31", q32)
    if not 0 <= q16 <= 15:
        raise ConstraintError(api, "F16 q", "0 <= q <= 15", q16)
    check_allocated(api, "target", t)
    check_allocated(api, "work vector", work)
    x = load(api, "input pointer", p_in, np.int32, units * UNIT)
    y = sat16(shift_round(x, q32 - q16, readings(m).shift_rounding))
    store(api, "output pointer", p_out, y)
    leave(work, x[-UNIT:])
    leave(t, y[-UNIT:])

