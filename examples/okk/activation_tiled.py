"""Sigmoid and tanh over a tensor far larger than the 32 MiB of local memory, tiled as the OKKernel
programming guide teaches, first simple, then ping-pong.

Elementwise, so the tensor is reshaped to fill every NPU: the flat data becomes rows of (C=64, H=1,
W=TILE_W) (the guide's "reshape to C=64, H=1, W=32k" trick, no padding), split along N into tiles; the
tail that does not fill a row is one (1, 64, 1, r // 64) tile plus a (1, r % 64, 1, 1) tile.

* simple: per tile, GDMA in, BDC compute, GDMA out, strictly one after the other;
* ping-pong: two buffer sets; in step i, inside okk_parallel_start/_end, GDMA loads tile i, BDC computes
  tile i-1 and GDMA stores tile i-2, so GDMA and BDC overlap on the timeline (the guide's plus_one_2).

Run: ``PYTHONPATH=src python examples/okk/activation_tiled.py [--op tanh] [--mib 40]``.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from npusim import okk

TILE_W = 16384                      # fp32 per NPU per buffer: 64 KiB, five buffers fit in 512 KiB
BUF = TILE_W * 4
OPS = {"sigmoid": okk.okk_bdc_sigmoid, "tanh": okk.okk_bdc_tanh}
REFERENCE = {"sigmoid": lambda x: 1 / (1 + np.exp(-x)), "tanh": np.tanh}
TOLERANCE = {"sigmoid": 1e-6, "tanh": 1e-5}


def tiles(total: int, tile_w: int = TILE_W):
    """(element offset, dim4) of every tile covering ``total`` elements."""
    row = 64 * tile_w
    out = [(i * row, okk.dim4(1, 64, 1, tile_w)) for i in range(total // row)]
    done = len(out) * row
    rest = total - done
    if rest >= 64:
        out.append((done, okk.dim4(1, 64, 1, rest // 64)))
        done += (rest // 64) * 64
    if total - done:
        out.append((done, okk.dim4(1, total - done, 1, 1)))
    return out


def kernel_simple(op: str, dst: int, src: int, total: int, tile_w: int = TILE_W) -> None:
    """One buffer set; GDMA and BDC take turns."""
    okk.okk_initialize()
    x_l, y_l, work = 0, BUF, 2 * BUF
    for off, sh in tiles(total, tile_w):
        okk.okk_gdma_32bit_cpy_S2L(x_l, src + 4 * off, sh, None, None)
        OPS[op](y_l, x_l, work, sh)
        okk.okk_gdma_32bit_cpy_L2S(dst + 4 * off, y_l, sh, None, None)
    okk.okk_poll()


def kernel_pingpong(op: str, dst: int, src: int, total: int, tile_w: int = TILE_W) -> None:
    """Two buffer sets; load i, compute i-1 and store i-2 run in one parallel region."""
    okk.okk_initialize()
    x_l, y_l, work = (0, BUF), (2 * BUF, 3 * BUF), 4 * BUF
    ts = tiles(total, tile_w)
    for i in range(len(ts) + 2):
        okk.okk_parallel_start()
        if i < len(ts):
            off, sh = ts[i]
            okk.okk_gdma_32bit_cpy_S2L(x_l[i % 2], src + 4 * off, sh, None, None)
        if 1 <= i <= len(ts):
            off, sh = ts[i - 1]
            OPS[op](y_l[(i - 1) % 2], x_l[(i - 1) % 2], work, sh)
        if i >= 2:
            off, sh = ts[i - 2]
            okk.okk_gdma_32bit_cpy_L2S(dst + 4 * off, y_l[i % 2], sh, None, None)
        okk.okk_parallel_end()
    okk.okk_poll()


def run(op: str, x: np.ndarray, pingpong: bool, tile_w: int = TILE_W) -> tuple[np.ndarray, okk.Device]:
    """Upload x, run the kernel on a fresh device, download the result (the host side of the guide)."""
    dev = okk.Device(global_mem_bytes=max(2 * x.nbytes + (1 << 20), 1 << 24))
    with dev:
        G = okk.okk_global_mem_start_addr()
        src, dst = G, G + ((x.nbytes + 4095) // 4096) * 4096
        dev.write_system(src, x)
        (kernel_pingpong if pingpong else kernel_simple)(op, dst, src, x.size, tile_w)
        return dev.read_system(dst, x.shape, np.float32), dev


def check(op: str, x: np.ndarray, y: np.ndarray) -> float:
    err = float(np.max(np.abs(y.astype(np.float64) - REFERENCE[op](x.astype(np.float64)))))
    return err


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--op", choices=sorted(OPS), default=None, help="default: both")
    p.add_argument("--mib", type=float, default=40.0, help="input size in MiB (local memory is 32 MiB)")
    args = p.parse_args(argv)
    n = int(args.mib * (1 << 20)) // 4 + 17              # +17: exercise both tail tiles
    x = np.random.default_rng(0).uniform(-10, 10, n).astype(np.float32)
    ok = True
    for op in ([args.op] if args.op else sorted(OPS)):
        cycles = {}
        for pp in (False, True):
            y, dev = run(op, x, pp)
            err = check(op, x, y)
            good = err < TOLERANCE[op]
            ok &= good
            cycles[pp] = dev.total_cycles
            print(f"{op:8s} {'ping-pong' if pp else 'simple':9s}: max |err| vs numpy {err:.2e} "
                  f"({'ok' if good else 'FAILED'}), {dev.total_cycles:,} cycles, "
                  f"{dev.total_ns / 1e3:,.1f} us modelled, {len(dev.events)} instructions")
        print(f"{op:8s} ping-pong saves {1 - cycles[True] / cycles[False]:.1%} of the cycles")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
