"""Tune an OKKernel conv2d's tiling (examples/okk/conv2d.py, spatial.run_window's conv branch with the
tile sizes as parameters): ``oc_tile`` output channels per weight load, ``rows`` output rows per
GDMA-in / conv / GDMA-out step, on NCHW (1, 16, 32, 64) -> 64 channels, 3x3, pad 1.

Fewer, larger steps pay the per-instruction start-up less often; the model says by how much. A tile that
outgrew its local-memory region would be refused by the kernel's own budget check (a row with its error).
Also a `npusim sweep` kernel file: npusim sweep examples/sweep/tune_okk_conv2d.py --param oc_tile=32,64 --param rows=8,32
Run: PYTHONPATH=src python examples/sweep/tune_okk_conv2d.py [--plot tune_okk_conv2d.png] [--workers N]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "okk"))

import npusim  # noqa: E402
from npusim import okk  # noqa: E402
from contest import Host, contest_ok  # noqa: E402
from spatial import BIAS, IN, IN_BYTES, OUT, OUT_BYTES, WEIGHT, Window, reference, to_2ic  # noqa: E402

SHAPE, OC, WIN = (1, 16, 32, 64), 64, Window(3, 3, (1, 1, 1, 1))
SPACE = {"oc_tile": [8, 16, 32, 64], "rows": [4, 8, 16, 32]}
NPUS = 64


def per_npu_bytes(channels, hw):
    """fp32 bytes one NPU holds of a [channels, hw] tile, 128-byte aligned rows (spatial._per_npu)."""
    return -(-channels // NPUS) * (-(-hw // 32) * 128)


def conv(dst, src, wsys, oc_tile, rows):
    n, c, h, w = SHAPE
    oh, ow = WIN.out_hw(h, w)
    span = WIN.kh
    st, dil = okk.dim2(*WIN.stride), okk.dim2(*WIN.dilation)
    src_st = okk.dim4(c * h * w, h * w, w, 1)
    dst_st = okk.dim4(OC * oh * ow, oh * ow, ow, 1)
    if per_npu_bytes(c, min((rows - 1) + span, h) * w) > IN_BYTES or per_npu_bytes(oc_tile, rows * ow) > OUT_BYTES:
        raise ValueError(f"tiling oc_tile={oc_tile} rows={rows} outgrows the local-memory regions")
    okk.okk_initialize()
    ic2 = -(-c // 2)
    for o0 in range(0, OC, oc_tile):
        on = min(oc_tile, OC - o0)
        kst = okk.okk_compact_stride(None, 0, okk.dim4(ic2, on, WIN.kh, WIN.kw))
        okk.okk_gdma_32bit_cpy_S2L(WEIGHT, wsys + 4 * o0 * WIN.kh * WIN.kw * 2, okk.dim4(ic2, on, WIN.kh, 2 * WIN.kw),
                                   okk.dim4(2 * kst.n, 2 * kst.c, 2 * kst.h, 1),
                                   okk.dim4(OC * WIN.kh * WIN.kw * 2, WIN.kh * WIN.kw * 2, WIN.kw * 2, 1))
        for b in range(n):
            for r0 in range(0, oh, rows):
                rn = min(rows, oh - r0)
                lo, hi = r0 - WIN.pad[0], r0 + rn - 1 - WIN.pad[0] + span
                i0, i1 = max(lo, 0), min(hi, h)
                ish = okk.dim4(1, c, i1 - i0, w)
                okk.okk_gdma_32bit_cpy_S2L(IN, src + 4 * (b * c * h * w + i0 * w), ish, None, src_st)
                pad = okk.Padding(i0 - lo, hi - i1, WIN.pad[2], WIN.pad[3])
                okk.okk_bdc_conv2d(OUT, IN, WEIGHT, BIAS, ish, on, WIN.kh, WIN.kw, None, kst, False, False,
                                   pad, st, dil)
                okk.okk_gdma_32bit_cpy_L2S(dst + 4 * (b * OC * oh * ow + o0 * oh * ow + r0 * ow), OUT,
                                           okk.dim4(1, on, rn, ow), dst_st, None)
    okk.okk_poll()


def inputs():
    r = np.random.default_rng(0)
    x = r.uniform(-1, 1, SHAPE).astype(np.float32)
    return x, r.uniform(-1, 1, (OC, SHAPE[1], WIN.kh, WIN.kw)).astype(np.float32)


def run(oc_tile, rows):
    x, wt = inputs()
    oh, ow = WIN.out_hw(*SHAPE[2:])
    host = Host(4 * (x.size + wt.size + SHAPE[0] * OC * oh * ow) + 4096)
    with host.dev:
        src, wsys = host.upload(x), host.upload(to_2ic(wt))
        dst = host.malloc(4 * SHAPE[0] * OC * oh * ow)
        conv(dst, src, wsys, oc_tile, rows)
        return host.download(dst, (SHAPE[0], OC, oh, ow))


def check(y, **config):
    x, wt = inputs()
    return contest_ok(y, reference("conv2d", x, WIN, wt), 1e-4)[0]      # the contest tolerance


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--plot", default="tune_okk_conv2d.png")
    p.add_argument("--workers", type=int, help="local processes (default: all cores)")
    args = p.parse_args(argv)
    result = npusim.sweep(run, SPACE, check=check, executor=args.workers)
    from rich.console import Console
    Console().print(result)
    best = result.best()
    print(f"best tiling: {best.config}: {best.cycles:,.0f} cycles ({best.sim_ns / 1e3:.2f} us simulated), "
          f"{best.instructions} instructions")
    result.plot(args.plot, title="OKKernel conv2d (1,16,32,64) -> 64, 3x3")
    print(f"plot written to {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
