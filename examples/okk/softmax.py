"""Softmax over C of an (N, C, H, W) fp32 tensor, the OKKernel way, checked at the contest tolerance
(1e-3) on the contest-1 shapes (reference §5).

The reduction runs over C, but local channels live on different NPUs, so the kernel puts C on the N
axis of the local tensor and the positions (h, w) - or the batch when H*W == 1 - on the channel axis:
tile (C, P, 1, 1) with compact strides, loaded by one strided GDMA. Then, per tile:
max over N by a halving tree of okk_bdc_max; x - max with a stride-0 broadcast (okk_bdc_sub);
okk_bdc_exp over the buffer viewed as (1, P, 1, C*rows); a halving tree of okk_bdc_add for the sum;
okk_bdc_reciprocal; okk_bdc_mul with a stride-0 broadcast; one strided GDMA store.

Run: ``PYTHONPATH=src python examples/okk/softmax.py [--all]``.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from npusim import okk

from contest import Host, contest_ok

SHAPES = [(1, 370, 13, 13), (1, 1000, 1, 1), (4, 2, 157, 283), (79, 4090, 1, 1), (6132, 21, 1, 1)]
BUF = 0x1F000                    # bytes per NPU of each of the four big buffers (x, y, z, work)
X, Y, Z, WORK, M = 0x0, BUF, 2 * BUF, 3 * BUF, 4 * BUF
TOL = 1e-3


def _tree(op, buf, count, P, rows, st):
    """Reduce rows 0..count-1 of ``buf`` (compact (count, P, 1, 1)) into row 0, halving in place."""
    while count > 1:
        h = count // 2
        op(buf, buf, buf + (count - h) * rows * 4, okk.dim4(h, P, 1, 1), st, st, st)
        count -= h


def softmax_tile(dst, src, C, P, src_stride):
    rows = -(-P // 64)
    st = okk.dim4(rows, 1, 1, 1)
    one = okk.dim4(1, P, 1, 1)
    bcast = okk.dim4(0, 1, 1, 1)
    sh = okk.dim4(C, P, 1, 1)
    okk.okk_gdma_32bit_cpy_S2L(X, src, sh, st, src_stride)
    okk.okk_bdc_32bit_cpy(Y, X, sh, st, st)
    _tree(okk.okk_bdc_max, Y, C, P, rows, st)
    okk.okk_bdc_32bit_cpy(M, Y, one, st, st)
    okk.okk_bdc_sub(Y, X, M, sh, st, st, bcast)
    flat = okk.dim4(1, min(P, 64), 1, C * rows)               # the same bytes, aligned layout
    okk.okk_bdc_exp(Z, Y, WORK, flat)
    okk.okk_bdc_32bit_cpy(Y, Z, sh, st, st)
    _tree(okk.okk_bdc_add, Y, C, P, rows, st)
    okk.okk_bdc_reciprocal(M, Y, one, st, st)
    okk.okk_bdc_mul(Y, Z, M, sh, st, st, bcast)
    okk.okk_gdma_32bit_cpy_L2S(dst, Y, sh, src_stride, st)


def _tiles(total, C):
    """Position tiles: multiples of 64 (so every NPU row is full), at most 4032 and what fits a buffer."""
    cap = min(4032, 64 * max(1, (BUF // 4) // C))
    out, p = [], 0
    while p < total:
        rest = total - p
        n = min(cap, rest) if rest < 64 else min(cap, rest - rest % 64)
        out.append((p, n))
        p += n
    return out


def softmax(dst, src, shape):
    n, c, h, w = shape
    hw = h * w
    okk.okk_initialize()
    if hw == 1:            # positions are the batch: element (c, p) at p*C + c
        for p0, P in _tiles(n, c):
            softmax_tile(dst + 4 * p0 * c, src + 4 * p0 * c, c, P, okk.dim4(1, c, 1, 1))
    else:                  # per batch item, positions are h*w: element (c, p) at c*HW + p
        for b in range(n):
            for p0, P in _tiles(hw, c):
                off = 4 * (b * c * hw + p0)
                softmax_tile(dst + off, src + off, c, P, okk.dim4(hw, 1, 1, 1))
    okk.okk_poll()


def run(shape, seed=0):
    x = np.random.default_rng(seed).uniform(-5, 5, shape).astype(np.float32)
    host = Host(2 * x.nbytes)
    with host.dev:
        src = host.upload(x)
        dst = host.malloc(x.nbytes)
        softmax(dst, src, shape)
        y = host.download(dst, shape)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    return y, ref, host.dev


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--all", action="store_true", help="also the large contest cases")
    args = p.parse_args(argv)
    ok = True
    for shape in SHAPES if args.all else SHAPES[:3] + SHAPES[4:]:
        y, ref, dev = run(shape)
        good, worst = contest_ok(y, ref, TOL)
        ok &= good
        print(f"softmax {shape}: worst rel err {worst:.2e} ({'ok' if good else 'FAILED'} at {TOL}), "
              f"{dev.total_cycles:,} cycles ({dev.total_ns / 1e3:,.1f} us modelled), {len(dev.events)} instructions")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
