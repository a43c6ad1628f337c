"""Differential: matmul, conv2d, depthwise2d, avg/max pool, bias/scale/scale_bias vs Sophgo's C-model,
bit for bit and cycle for cycle, on random shapes, start NPUs, paddings, strides and dilations."""
import os
import sys

import numpy as np
import pytest

from npusim.okk.oracle.fetch import available

if not available():
    pytest.skip("C-model libraries absent (run: python -m npusim.okk.oracle.fetch)", allow_module_level=True)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from npusim import okk  # noqa: E402
from part_two_cases import check, fill, reads, values  # noqa: E402


def _t(d):
    return (d.n, d.c, d.h, d.w)


def _fill(rng, offs, n=0x8000, edge=False):
    out = []
    for off in offs:
        out += fill(off, values(n // 4 if off >= 0x30000 else n, rng, edge=edge, scale=1.0))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_matmul(oracle, seed):
    rng = np.random.default_rng(seed)
    m, k, n = int(rng.integers(1, 20)), int(rng.integers(1, 70)), int(rng.integers(1, 150))
    lc, rc = int(rng.integers(1, min(128, k) + 1)), int(rng.integers(1, min(128, n) + 1))
    if m * -(-k // lc) > 512 or m * -(-n // rc) * rc > 4096 or -(-k // lc) > 64:
        lc = min(128, k)
    q = int(rng.integers(0, 64))
    b = q * 0x80000
    ub, ra = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    setup = _fill(rng, (0, 0x20000, 0x40000, 0x50000))
    check(oracle, setup, [("okk_bdc_matmul", (b + 0x50000, int(rng.integers(0, 64)) * 0x80000, b + 0x20000,
                                              b + 0x40000, m, k, n, lc, rc, ub, ra))], reads(0x50000, 0x8000))


def _conv_case(rng):
    ic, oc = int(rng.integers(1, 34)), int(rng.integers(1, 80))
    kh, kw = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    pad = tuple(int(v) for v in rng.integers(0, 3, 4))
    st = tuple(int(v) for v in rng.integers(1, 4, 2))
    dil = tuple(int(v) for v in rng.integers(1, 3, 2))
    h = int(rng.integers((kh - 1) * dil[0] + 1, 14))
    w = int(rng.integers((kw - 1) * dil[1] + 1, 14))
    return (int(rng.integers(1, 3)), ic, h, w), oc, kh, kw, pad, st, dil


@pytest.mark.parametrize("seed", range(10))
def test_conv2d(oracle, seed):
    rng = np.random.default_rng(100 + seed)
    sh, oc, kh, kw, pad, st, dil = _conv_case(rng)
    q, qi = int(rng.integers(0, 64)), int(rng.integers(0, 64))
    b = q * 0x80000
    ist = okk.okk_128_byte_aligned_stride_for_32bit(None, qi, okk.dim4(*sh))
    kst = okk.okk_compact_stride(None, q, okk.dim4(-(-sh[1] // 2), oc, kh, kw))
    args = (b + 0x20000, qi * 0x80000, b + 0x30000, b + 0x38000, sh, oc, kh, kw, _t(ist), _t(kst),
            int(rng.integers(0, 2)), int(rng.integers(0, 2)), okk.Padding(*pad), okk.dim2(*st), okk.dim2(*dil))
    check(oracle, _fill(rng, (0, 0x20000, 0x30000, 0x38000), edge=seed % 3 == 0),
          [("okk_bdc_conv2d", args)], reads(0x20000, 0x10000))


@pytest.mark.parametrize("fn", ["okk_bdc_depthwise2d", "okk_bdc_avg_pool2d", "okk_bdc_max_pool2d"])
@pytest.mark.parametrize("seed", range(5))
def test_depthwise_and_pools(oracle, fn, seed):
    rng = np.random.default_rng(200 + seed)
    sh, _, kh, kw, pad, st, dil = _conv_case(rng)
    sh = (sh[0], int(rng.integers(1, 140)), sh[2], sh[3])
    q = int(rng.integers(0, 64))
    b = q * 0x80000
    if fn == "okk_bdc_depthwise2d":
        args = (b + 0x20000, b, b + 0x30000, b + 0x34000, sh, kh, kw, int(rng.integers(0, 2)),
                okk.Padding(*pad), okk.dim2(*st), okk.dim2(*dil))
    else:
        args = (b + 0x20000, b, sh, kh, kw, okk.Padding(*pad), okk.dim2(*st))
    check(oracle, _fill(rng, (0, 0x20000, 0x30000, 0x34000), edge=seed % 2 == 0), [(fn, args)],
          reads(0x20000, 0x10000))


@pytest.mark.parametrize("fn", ["okk_bdc_bias", "okk_bdc_scale", "okk_bdc_scale_bias"])
@pytest.mark.parametrize("strided", [False, True])
def test_linear(oracle, fn, strided):
    rng = np.random.default_rng(300 + strided)
    q, c = int(rng.integers(0, 64)), int(rng.integers(1, 150))
    sh = (int(rng.integers(1, 3)), c, int(rng.integers(1, 4)), int(rng.integers(1, 20)))
    b = q * 0x80000
    st = (sh[2] * sh[3] * -(-(q + c) // 64), sh[2] * sh[3], sh[3], 1) if strided else None
    per = (b + 0x20000, b + 0x30000) if fn == "okk_bdc_scale_bias" else (b + 0x20000,)
    check(oracle, _fill(rng, (0, 0x10000, 0x20000, 0x30000), 0x4000, edge=True),
          [(fn, (b + 0x10000, b) + per + (sh, st, st))], reads(0x10000, 0x10000))
