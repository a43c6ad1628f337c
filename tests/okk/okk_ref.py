"""Independent references for the tests: the reference's algorithms (okkernel.md §4) written with
float64 numpy and Fractions, rounding each step to fp32 (float64 is exact for fp32 products, and an
fp32 sum rounded through float64 cannot double-round), then flushing subnormals. Also: run one okk
call on a fresh device from numpy in, numpy out."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from npusim import okk

TINY = 2.0 ** -126


def fl(v) -> np.ndarray:
    """Round float64 values to fp32 (RNE), then flush subnormal results to a signed zero."""
    with np.errstate(all="ignore"):
        r = np.asarray(v, np.float64).astype(np.float32)
    return np.where(np.abs(r) < TINY, np.copysign(np.float32(0), r), r).astype(np.float32)


def d(v) -> np.ndarray:
    """DAZ: an fp32 operand as float64 with subnormals read as zero."""
    return fl(np.asarray(v, np.float32)).astype(np.float64)


def f32_round_fraction(q: Fraction) -> np.float32:
    """Exact RNE of a rational to fp32 (choose among neighbours by exact comparison)."""
    c = np.float32(float(q))
    best = None
    for cand in (np.nextafter(c, np.float32(-np.inf)), c, np.nextafter(c, np.float32(np.inf))):
        err = abs(Fraction(float(cand)) - q)
        key = (err, int(np.array(cand).view(np.uint32)) & 1)
        if best is None or key < best[0]:
            best = (key, cand)
    return best[1]


def coefficients() -> list[float]:
    c = [Fraction(1)]
    out = [1.0]
    for k in range(1, 65):
        v = f32_round_fraction(c[-1] / k)
        v = np.float32(0) if abs(float(v)) < TINY else v
        c.append(Fraction(float(v)))
        out.append(float(v))
    return out


COEF = coefficients()


def taylor_sum(x, n):
    x = d(x)
    with np.errstate(all="ignore"):
        p = d(fl(COEF[n] * x))
        for k in range(n - 1, 0, -1):
            p = d(fl(p + COEF[k]))
            p = d(fl(p * x))
    return p.astype(np.float32)


def exp_table(i32) -> np.ndarray:
    idx = ((np.asarray(i32, np.int64) & 0xFF) ^ 0x80) - 0x80
    out = np.zeros(idx.shape, np.float32)
    for i in np.unique(idx):
        if -103 <= i <= 88:
            out[idx == i] = np.float32(math.exp(int(i)))
    return out


def i8(i32) -> np.ndarray:
    return (((np.asarray(i32, np.int64) & 0xFF) ^ 0x80) - 0x80).astype(np.float32)


def trunc_sat(x) -> np.ndarray:
    x = np.asarray(x, np.float64)
    x = np.where(np.isnan(x), np.where(np.signbit(x), -np.inf, np.inf), x)     # NaN saturates by sign
    with np.errstate(all="ignore"):
        t = np.trunc(np.nan_to_num(x, posinf=3e9, neginf=-3e9))
    return np.clip(t, -2 ** 31, 2 ** 31 - 1).astype(np.int64)


def exp_chain(x, n):
    x32 = np.asarray(x, np.float32)
    i = trunc_sat(d(x32))
    fi = i8(i)
    frac = fl(d(x32) - d(fi))
    e = exp_table(trunc_sat(fi))
    s = taylor_sum(frac, n)
    with np.errstate(all="ignore"):
        return fl(d(e) + d(fl(d(e) * d(s))))


def rsqrt_nr(x):
    x = np.asarray(x, np.float32)
    bits = x.view(np.int32).astype(np.int64)          # signed: an arithmetic shift below
    y = fl(((0x5F3759DF - (bits >> 1)) & 0xFFFFFFFF).astype(np.uint32).view(np.float32))
    y = d(y)
    x2 = d(fl(0.5 * d(x)))
    with np.errstate(all="ignore"):
        for _ in range(3):
            t = d(fl(x2 * y))
            t = d(fl(t * y))
            t = d(fl(1.5 - t))
            y = d(fl(y * t))
    return y.astype(np.float32)


def div(a, b):
    a = np.broadcast_to(np.asarray(a, np.float32), np.shape(b)).copy()
    b = np.asarray(b, np.float32)
    r = d(rsqrt_nr(np.abs(b)))
    neg = np.signbit(a) ^ np.signbit(b)
    a2 = np.where(neg, -np.abs(d(a)), np.abs(d(a)))
    with np.errstate(all="ignore"):
        return fl(d(fl(r * r)) * a2)


def sigmoid(x, n=32):
    with np.errstate(all="ignore"):
        e = exp_chain(fl(0.0 - d(x)), n)
        return div(np.float32(1), fl(d(e) + 1.0))


def tanh(x, n=32):
    e = exp_chain(x, n)
    r = div(np.float32(1), e)
    with np.errstate(all="ignore"):
        q = div(r, fl(d(e) + d(r)))
        return fl(d(fl(d(q) * -2.0)) + 1.0)


def run_unary(fn, x: np.ndarray, work: bool = False, *extra, start_npu: int = 0, dev=None):
    """Upload x (N, C, H, W) fp32, run fn on local copies, download dst. Returns (y, device)."""
    x = np.ascontiguousarray(x, np.float32)
    sh = okk.dim4(*x.shape)
    dev = dev or okk.Device()
    base = start_npu * okk.okk_local_mem_size_per_npu()
    stride = okk.okk_128_byte_aligned_stride_for_32bit(None, start_npu, sh)
    size = stride.n * sh.n * 4
    size = -(-size // 128) * 128
    src, dst, wk = base, base + size, base + 2 * size
    with dev:
        okk.okk_initialize()
        G = okk.okk_global_mem_start_addr()
        dev.write_system(G, x)
        okk.okk_gdma_32bit_cpy_S2L(src, G, sh, None, None)
        if work:
            fn(dst, src, wk, sh, *extra)
        else:
            fn(dst, src, sh, *extra)
        okk.okk_gdma_32bit_cpy_L2S(G + x.nbytes, dst, sh, None, None)
        okk.okk_poll()
        return dev.read_system(G + x.nbytes, x.shape, np.float32), dev


def bits(a) -> np.ndarray:
    return np.asarray(a, np.float32).view(np.uint32)


def assert_bits_equal(got, want):
    g, w = bits(got), bits(want)
    # all NaNs compare equal (payload not specified by the reference)
    gn, wn = np.isnan(np.asarray(got, np.float32)), np.isnan(np.asarray(want, np.float32))
    assert np.array_equal(gn, wn), "NaN positions differ"
    bad = (g != w) & ~gn
    if bad.any():
        i = np.flatnonzero(bad.ravel())[0]
        raise AssertionError(f"{bad.sum()} mismatches; first: got {np.ravel(got)[i]!r} ({g.ravel()[i]:#x}) "
                             f"want {np.ravel(want)[i]!r} ({w.ravel()[i]:#x})")
