"""avg_pool2d and max_pool2d (NCHW, fp32) the OKKernel way (channel groups x output-row tiles with
halo), checked at the contest tolerance (1e-4; max pool is exact) on contest-S1-like cases: a global
pool, ResNet's stem max pool, overlapping windows with padding (reference §5).

``--s1`` runs all 15 contest-S1 avg_pool cases (sophon-ai-algo/tpu_op_contest_s1 host/avg_pool.cpp, its
ceil_mode / count_include_pad semantics): 9 are one okk_bdc_avg_pool2d per tile; count_include_pad = 0 with
padding multiplies by a kh*kw / pool_size border map, ceil_mode adds bottom/right padding, and the stride-16
case is two pools (run_avg_s1).

Run: ``PYTHONPATH=src python examples/okk/pooling.py [--s1]``.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from contest import Host, contest_ok
from npusim import okk
from spatial import BIAS, IN, OUT, WEIGHT, Window, reference, row_tiles, run_window

CASES = [
    ("avg_pool2d", (4, 2048, 7, 7), Window(7, 7)),                            # global average pool
    ("max_pool2d", (2, 64, 112, 112), Window(3, 3, (1, 1, 1, 1), (2, 2))),    # ResNet stem
    ("avg_pool2d", (2, 96, 55, 55), Window(3, 3, (1, 1, 1, 1), (2, 2))),      # padding counted
    ("max_pool2d", (1, 130, 33, 41), Window(2, 3, (0, 1, 1, 0), (2, 3))),
]
# Contest S1 avg_pool cases: (index, shape, Window, None) when okk_bdc_avg_pool2d computes the case directly,
# else (index, shape, Window, the OKKernel workaround run_s1 uses). S1_MODE: index -> (ceil_mode,
# count_include_pad) from host/avg_pool.cpp.
S1 = [
    (0, (1, 40, 40, 40), Window(40, 40), None),
    (1, (1, 1024, 32, 32), Window(16, 16, (0, 0, 0, 0), (16, 16)), "stride 16 > 15: two k4 s4 stages"),
    (2, (1, 2048, 28, 28), Window(28, 28), None),
    (3, (1, 64, 22, 92), Window(5, 5, (0, 0, 0, 0), (5, 5)), None),
    (4, (1, 42, 111, 111), Window(3, 3, (1, 1, 1, 1), (2, 2)), "count_include_pad = 0: border correction map"),
    (5, (1, 2048, 5, 5), Window(3, 3, (1, 1, 1, 1)), "count_include_pad = 0: border correction map"),
    (6, (1, 1008, 28, 28), Window(1, 1, (0, 0, 0, 0), (2, 2)), None),
    (7, (300, 2048, 7, 7), Window(7, 7), None),
    (8, (300, 1024, 4, 4), Window(3, 3, (1, 1, 1, 1)), "count_include_pad = 0: border correction map"),
    (9, (1, 320, 25, 32), Window(25, 32), None),
    (10, (1, 192, 100, 75), Window(3, 3, (1, 1, 1, 1)),
     "ceil_mode (stride 1: no extra row), count_include_pad = 0: border correction map"),
    (11, (1, 288, 63, 63), Window(3, 3), None),
    (12, (1, 1024, 4, 4), Window(3, 3, (1, 1, 1, 1)), "ceil_mode (stride 1: no extra row, no correction)"),
    (13, (1, 1546, 5, 5), Window(7, 7, (1, 1, 1, 1)), None),
    (14, (1, 32, 1, 156), Window(1, 4, (0, 0, 1, 1), (1, 2)), None),
]
S1_MODE = {0: (0, 0), 1: (0, 0), 2: (0, 0), 3: (0, 0), 4: (0, 0), 5: (0, 0), 6: (0, 0), 7: (0, 0), 8: (0, 0),
           9: (0, 0), 10: (1, 0), 11: (1, 0), 12: (1, 1), 13: (0, 1), 14: (0, 1)}
TOL = 1e-4


def run(kind, shape, win, seed=0):
    x = np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)
    oh, ow = win.out_hw(shape[2], shape[3])
    host = Host(4 * (x.size + shape[0] * shape[1] * oh * ow) + 4096)
    with host.dev:
        src = host.upload(x)
        dst = host.malloc(4 * shape[0] * shape[1] * oh * ow)
        run_window(kind, dst, src, shape, win, 64 * 16)
        y = host.download(dst, (shape[0], shape[1], oh, ow))
    return y, reference(kind, x, win), host.dev


def host_out_hw(h, w, win: Window, ceil_mode: int):
    """Output size as host/avg_pool.cpp computes it (ceil_mode rounds the last partial window up)."""
    (kh, kw), (pt, pb, pl, pr), (sh, sw) = (win.kh, win.kw), win.pad, win.stride
    eh, ew = h + pt + pb - kh, w + pl + pr - kw
    if ceil_mode:
        return -(-eh // sh) + 1, -(-ew // sw) + 1
    return eh // sh + 1, ew // sw + 1


def _axis(size, k, s, p0, p1, n_out):
    """Per output index along one axis: (count with padding, clipped to the padded extent; valid count)."""
    start = np.arange(n_out) * s
    end = np.minimum(start + k, size + p0 + p1)
    lo, hi = np.maximum(start - p0, 0), np.minimum(end - p0, size)
    return end - start, hi - lo, lo, hi


def pool_size(h, w, win: Window, ceil_mode: int, count_include_pad: int) -> np.ndarray:
    """(OH, OW) divisor host/avg_pool.cpp uses for each output."""
    oh, ow = host_out_hw(h, w, win, ceil_mode)
    ch, vh, _, _ = _axis(h, win.kh, win.stride[0], win.pad[0], win.pad[1], oh)
    cw, vw, _, _ = _axis(w, win.kw, win.stride[1], win.pad[2], win.pad[3], ow)
    return np.outer(ch, cw) if count_include_pad else np.outer(vh, vw)


def reference_s1(x: np.ndarray, win: Window, ceil_mode: int, count_include_pad: int) -> np.ndarray:
    """float64 avg_pool with the contest host's semantics: window sums from a 2-D prefix sum of the
    unpadded input over the clipped window, divided by pool_size."""
    n, c, h, w = x.shape
    oh, ow = host_out_hw(h, w, win, ceil_mode)
    _, _, h0, h1 = _axis(h, win.kh, win.stride[0], win.pad[0], win.pad[1], oh)
    _, _, w0, w1 = _axis(w, win.kw, win.stride[1], win.pad[2], win.pad[3], ow)
    s = np.zeros((n, c, h + 1, w + 1))
    s[:, :, 1:, 1:] = x.astype(np.float64).cumsum(2).cumsum(3)
    tot = (s[:, :, h1][:, :, :, w1] - s[:, :, h0][:, :, :, w1] - s[:, :, h1][:, :, :, w0]
           + s[:, :, h0][:, :, :, w0])
    return tot / pool_size(h, w, win, ceil_mode, count_include_pad)


def _two_stage_split(k: int) -> int:
    """A divisor a of k with a <= 15 and k / a <= 15, closest to sqrt(k) (k4 x k4 for 16)."""
    ok = [a for a in range(1, 16) if k % a == 0 and k // a <= 15]
    if not ok:
        raise ValueError(f"window {k} cannot be split into two BDC pools of at most 15")
    return min(ok, key=lambda a: abs(a * a - k))


def run_avg_s1(dst, src, shape, win: Window, ceil_mode: int, count_include_pad: int, fix_sys, c_tile=64 * 16):
    """avg_pool the OKKernel way with the contest's ceil_mode / count_include_pad: okk_bdc_avg_pool2d
    divides by kh*kw (padding counted), so positions whose divisor differs are multiplied by
    kh*kw / pool_size from a (1, 64, OH, OW) map loaded once into every NPU (broadcast over channel
    groups with a 0 channel stride); ceil_mode's extra row/col is extra bottom/right padding; a stride
    above the BDC's 15 (non-overlapping windows only) is two pools, k = a x (k / a)."""
    n, c, h, w = shape
    oh, ow = host_out_hw(h, w, win, ceil_mode)
    (kh, kw), (pt, pb, pl, pr), (sh, sw) = (win.kh, win.kw), win.pad, win.stride
    pb = max(pb, (oh - 1) * sh + kh - h - pt)
    pr = max(pr, (ow - 1) * sw + kw - w - pl)
    ewin = Window(kh, kw, (pt, pb, pl, pr), (sh, sw))
    assert ewin.out_hw(h, w) == (oh, ow)
    two = sh > 15 or sw > 15
    if two:
        if (kh, kw) != (sh, sw) or any(ewin.pad):
            raise ValueError("a stride above 15 is split only for non-overlapping windows without padding")
        a, b = _two_stage_split(kh), _two_stage_split(kw)
    size = pool_size(h, w, win, ceil_mode, count_include_pad)
    if np.any(size <= 0):
        raise ValueError("a ceil_mode window starts past the input (the host reference divides by 0)")
    fix = kh * kw / size
    need_fix = bool(np.any(fix != 1.0))
    if need_fix and 4 * oh * ow > BIAS - WEIGHT:
        raise ValueError(f"correction map {oh}x{ow} does not fit the weight region")
    okk.okk_initialize()
    if need_fix:
        okk.okk_gdma_32bit_cpy_S2L(WEIGHT, fix_sys, okk.dim4(1, 64, oh, ow),
                                   okk.okk_compact_stride(None, 0, okk.dim4(1, 64, oh, ow)), None)
    src_st = okk.dim4(c * h * w, h * w, w, 1)
    dst_st = okk.dim4(c * oh * ow, oh * ow, ow, 1)
    for c0 in range(0, c, c_tile):
        cn = min(c_tile, c - c0)
        for bi in range(n):
            for r0, rn, i0, inn, ptop, pbot in row_tiles(ewin, h, w, cn, cn):
                ish = okk.dim4(1, cn, inn, w)
                okk.okk_gdma_32bit_cpy_S2L(IN, src + 4 * (bi * c * h * w + c0 * h * w + i0 * w), ish, None, src_st)
                res = OUT
                if two:
                    okk.okk_bdc_avg_pool2d(OUT, IN, ish, a, b, okk.Padding(0, 0, 0, 0), okk.dim2(a, b))
                    okk.okk_bdc_avg_pool2d(IN, OUT, okk.dim4(1, cn, inn // a, w // b), kh // a, kw // b,
                                           okk.Padding(0, 0, 0, 0), okk.dim2(kh // a, kw // b))
                    res = IN
                else:
                    okk.okk_bdc_avg_pool2d(OUT, IN, ish, kh, kw, okk.Padding(ptop, pbot, pl, pr), okk.dim2(sh, sw))
                osh = okk.dim4(1, cn, rn, ow)
                if need_fix:
                    okk.okk_bdc_mul(res, res, WEIGHT + 4 * r0 * ow, osh, None, None, okk.dim4(0, 0, ow, 1))
                okk.okk_gdma_32bit_cpy_L2S(dst + 4 * (bi * c * oh * ow + c0 * oh * ow + r0 * ow), res, osh, dst_st, None)
    okk.okk_poll()


def run_s1(index: int, seed=0):
    """One contest-S1 case: (output, float64 reference, device)."""
    return run_pool(S1[index][1], S1[index][2], *S1_MODE[index], seed=seed)


def run_pool(shape, win: Window, ceil_mode: int, cip: int, seed=0):
    """avg_pool with the contest host's flags on U[0, 1) input: (output, float64 reference, device)."""
    x = np.random.default_rng(seed).uniform(0, 1, shape).astype(np.float32)   # the host draws U[0, 1)
    oh, ow = host_out_hw(shape[2], shape[3], win, ceil_mode)
    with np.errstate(divide="ignore"):
        fix = (win.kh * win.kw / pool_size(shape[2], shape[3], win, ceil_mode, cip)).astype(np.float32)
    out_bytes = 4 * shape[0] * shape[1] * oh * ow
    host = Host(4 * x.size + out_bytes + 4 * 64 * oh * ow + 3 * 4096)
    with host.dev:
        src = host.upload(x)
        fix_sys = host.upload(np.ascontiguousarray(np.broadcast_to(fix, (64, oh, ow))))
        dst = host.malloc(out_bytes)
        run_avg_s1(dst, src, shape, win, ceil_mode, cip, fix_sys)
        y = host.download(dst, (shape[0], shape[1], oh, ow))
    return y, reference_s1(x, win, ceil_mode, cip), host.dev


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--s1", action="store_true", help="the contest-S1 avg_pool cases")
    args = p.parse_args(argv)
    ok = True
    if args.s1:
        for i, shape, win, how in S1:
            y, ref, dev = run_s1(i)
            good, worst = contest_ok(y, ref, TOL)
            ok &= good
            print(f"avg_pool2d S1 case {i} {shape} k{win.kh}x{win.kw} pad {win.pad} stride {win.stride} "
                  f"ceil_mode {S1_MODE[i][0]} count_include_pad {S1_MODE[i][1]}: worst rel err {worst:.2e} "
                  f"({'ok' if good else 'FAILED'}), {dev.total_cycles:,} cycles{'' if how is None else ' [' + how + ']'}")
        return 0 if ok else 1
    for kind, shape, win in CASES:
        y, ref, dev = run(kind, shape, win)
        good, worst = contest_ok(y, ref, TOL)
        if kind == "max_pool2d":
            good &= bool(np.array_equal(y, ref.astype(np.float32)))
        ok &= good
        print(f"{kind} {shape} k{win.kh}x{win.kw} pad {win.pad} stride {win.stride}: worst rel err {worst:.2e} "
              f"({'ok' if good else 'FAILED'}), {dev.total_cycles:,} cycles ({dev.total_ns / 1e3:,.1f} us modelled)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
