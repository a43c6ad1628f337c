"""The four plus_one kernels of the OKKernel programming guide (reference §3.1, S1
programming_device.rst.txt), written the OKKernel way and checked against numpy:

1. simple: load the whole (N, C, H, W) tensor, add 1, store;
2. ping-pong: split N into tiles; load tile i, compute tile i-1 and store tile i-2 in one parallel region;
3. N-split pipeline: as 2, with the tile count chosen from the local memory size;
4. reshape to C=64, H=1, W=32: the flat data fills every NPU without padding; the tail that does not fill
   a (64 x 32) row is handled by calling the kernel again on it (tail recursion in the guide).

Run: ``PYTHONPATH=src python examples/okk/plus_one.py``.
"""
from __future__ import annotations

import sys

import numpy as np

from npusim import okk

from contest import Host


def plus_one_1(dst, src, shape):
    okk.okk_initialize()
    okk.okk_gdma_32bit_cpy_S2L(0, src, shape, None, None)
    okk.okk_bdc_add_C(0x40000, 0, 1.0, shape, None, None)
    okk.okk_gdma_32bit_cpy_L2S(dst, 0x40000, shape, None, None)
    okk.okk_poll()


def _pingpong(dst, src, shape, tile_n):
    n, c, h, w = shape.tuple()
    per_n = c * h * w * 4
    tiles = [(i, min(tile_n, n - i)) for i in range(0, n, tile_n)]
    in_buf, out_buf = (0x0, 0x20000), (0x40000, 0x60000)
    for i in range(len(tiles) + 2):
        okk.okk_parallel_start()
        if i < len(tiles):
            n0, nn = tiles[i]
            okk.okk_gdma_32bit_cpy_S2L(in_buf[i % 2], src + n0 * per_n, okk.dim4(nn, c, h, w), None, None)
        if 1 <= i <= len(tiles):
            n0, nn = tiles[i - 1]
            okk.okk_bdc_add_C(out_buf[(i - 1) % 2], in_buf[(i - 1) % 2], 1.0, okk.dim4(nn, c, h, w), None, None)
        if i >= 2:
            n0, nn = tiles[i - 2]
            okk.okk_gdma_32bit_cpy_L2S(dst + n0 * per_n, out_buf[i % 2], okk.dim4(nn, c, h, w), None, None)
        okk.okk_parallel_end()


def plus_one_2(dst, src, shape):
    okk.okk_initialize()
    _pingpong(dst, src, shape, 1)
    okk.okk_poll()


def plus_one_3(dst, src, shape):
    """N-split pipeline: as many N per tile as fit one 128 KiB buffer of each NPU."""
    okk.okk_initialize()
    st = okk.okk_128_byte_aligned_stride_for_32bit(None, 0, okk.dim4(1, shape.c, shape.h, shape.w))
    tile_n = max(1, 0x20000 // (st.n * 4))
    _pingpong(dst, src, shape, tile_n)
    okk.okk_poll()


def plus_one_4(dst, src, count):
    """Reshape to (N, 64, 1, 32): every NPU busy, no padding; the tail is run again as a smaller kernel."""
    okk.okk_initialize()
    _plus_one_4_body(dst, src, count)
    okk.okk_poll()


def _plus_one_4_body(dst, src, count):
    row = 64 * 32
    n = count // row
    if n:
        _pingpong(dst, src, okk.dim4(n, 64, 1, 32), 0x20000 // (32 * 4))
    rest = count - n * row
    if rest:
        c = min(rest, 64)
        w = rest // c
        done = n * row
        sh = okk.dim4(1, c, 1, w)
        okk.okk_gdma_32bit_cpy_S2L(0, src + 4 * done, sh, None, None)
        okk.okk_bdc_add_C(0x40000, 0, 1.0, sh, None, None)
        okk.okk_gdma_32bit_cpy_L2S(dst + 4 * done, 0x40000, sh, None, None)
        tail = rest - c * w
        if tail:
            _plus_one_4_body(dst + 4 * (done + c * w), src + 4 * (done + c * w), tail)


def run(kernel: int, x: np.ndarray):
    host = Host(3 * x.nbytes)
    with host.dev:
        src = host.upload(x)
        dst = host.malloc(x.nbytes)
        if kernel == 4:
            plus_one_4(dst, src, x.size)
        else:
            (plus_one_1, plus_one_2, plus_one_3)[kernel - 1](dst, src, okk.dim4(*x.shape))
        return host.download(dst, x.shape), host.dev


def main() -> int:
    rng = np.random.default_rng(0)
    ok = True
    for k, shape in ((1, (2, 70, 8, 9)), (2, (6, 70, 8, 9)), (3, (400, 70, 8, 9)), (4, (5, 3, 77, 101))):
        x = rng.standard_normal(shape).astype(np.float32)
        y, dev = run(k, x)
        good = np.array_equal(y, x + np.float32(1))
        ok &= good
        print(f"plus_one_{k} {shape}: {'exact' if good else 'FAILED'}, {dev.total_cycles:,} cycles, "
              f"{len(dev.events)} instructions")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
