"""The OKKernel way to run a 2-D window op (conv2d, depthwise2d, avg/max pool) over tensors larger than
local memory: per batch item and channel group, split the output rows into tiles; each tile loads only
the input rows its windows touch (the halo), with the top/bottom padding passed only where the tile
meets the tensor's edge; GDMA in, one BDC instruction, GDMA out (reference §3, §5 demo kernels).

Local memory per NPU: input tile [0, 0x30000), output tile [0x30000, 0x58000), weights [0x58000, 0x7C000),
bias [0x7C000, 0x80000)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from npusim import okk

IN, OUT, WEIGHT, BIAS = 0x0, 0x30000, 0x58000, 0x7C000
IN_BYTES, OUT_BYTES = OUT - IN, WEIGHT - OUT


@dataclass
class Window:
    kh: int
    kw: int
    pad: tuple = (0, 0, 0, 0)          # top, bottom, left, right
    stride: tuple = (1, 1)
    dilation: tuple = (1, 1)

    def out_hw(self, h, w):
        pt, pb, pl, pr = self.pad
        oh = (h + pt + pb - ((self.kh - 1) * self.dilation[0] + 1)) // self.stride[0] + 1
        ow = (w + pl + pr - ((self.kw - 1) * self.dilation[1] + 1)) // self.stride[1] + 1
        return oh, ow


def _per_npu(channels: int, hw: int) -> int:
    return -(-channels // 64) * (-(-hw // 32) * 128)


def row_tiles(win: Window, h: int, w: int, cin: int, cout: int):
    """[(oh0, oh_n, ih0, ih_n, pad_top, pad_bottom)] covering the output rows within the budgets."""
    oh, ow = win.out_hw(h, w)
    pt = win.pad[0]
    span = (win.kh - 1) * win.dilation[0] + 1
    n_t = oh
    while n_t > 1:
        rows = (n_t - 1) * win.stride[0] + span
        if _per_npu(cin, min(rows, h) * w) <= IN_BYTES and _per_npu(cout, n_t * ow) <= OUT_BYTES:
            break
        n_t = max(1, n_t // 2 if n_t > 8 else n_t - 1)
    out = []
    for o0 in range(0, oh, n_t):
        on = min(n_t, oh - o0)
        lo = o0 * win.stride[0] - pt
        hi = (o0 + on - 1) * win.stride[0] - pt + span
        i0, i1 = max(lo, 0), min(hi, h)
        out.append((o0, on, i0, i1 - i0, i0 - lo, hi - i1))
    return out


def run_window(kind: str, dst: int, src: int, shape, win: Window, c_tile: int, weight_sys=None,
               out_c: int | None = None, oc_tile: int | None = None):
    """kind: conv2d | depthwise2d | avg_pool2d | max_pool2d; shapes NCHW in system memory."""
    n, c, h, w = shape
    oc = out_c if kind == "conv2d" else c
    oh, ow = win.out_hw(h, w)
    st = okk.dim2(*win.stride)
    dil = okk.dim2(*win.dilation)
    okk.okk_initialize()
    groups = [(0, c, o0, min(oc_tile, oc - o0)) for o0 in range(0, oc, oc_tile)] if kind == "conv2d" else \
        [(c0, min(c_tile, c - c0), c0, min(c_tile, c - c0)) for c0 in range(0, c, c_tile)]
    src_st = okk.dim4(c * h * w, h * w, w, 1)
    dst_st = okk.dim4(oc * oh * ow, oh * ow, ow, 1)
    for ci, cn, o0, on in groups:
        if kind == "conv2d":
            kh, kw, ic2 = win.kh, win.kw, -(-c // 2)
            kst = okk.okk_compact_stride(None, 0, okk.dim4(ic2, on, kh, kw))
            okk.okk_gdma_32bit_cpy_S2L(WEIGHT, weight_sys + 4 * o0 * kh * kw * 2, okk.dim4(ic2, on, kh, 2 * kw),
                                       okk.dim4(2 * kst.n, 2 * kst.c, 2 * kst.h, 1),
                                       okk.dim4(oc * kh * kw * 2, kh * kw * 2, kw * 2, 1))
        elif kind == "depthwise2d":
            wst = okk.okk_compact_stride(None, 0, okk.dim4(1, cn, win.kh, win.kw))
            okk.okk_gdma_32bit_cpy_S2L(WEIGHT, weight_sys + 4 * ci * win.kh * win.kw,
                                       okk.dim4(1, cn, win.kh, win.kw), wst, None)
        for b in range(n):
            for r0, rn, i0, inn, ptop, pbot in row_tiles(win, h, w, cn, on):
                ish = okk.dim4(1, cn, inn, w)
                okk.okk_gdma_32bit_cpy_S2L(IN, src + 4 * (b * c * h * w + ci * h * w + i0 * w), ish, None, src_st)
                pad = okk.Padding(ptop, pbot, win.pad[2], win.pad[3])
                if kind == "conv2d":
                    okk.okk_bdc_conv2d(OUT, IN, WEIGHT, BIAS, ish, on, win.kh, win.kw, None, kst, False, False,
                                       pad, st, dil)
                elif kind == "depthwise2d":
                    okk.okk_bdc_depthwise2d(OUT, IN, WEIGHT, BIAS, ish, win.kh, win.kw, False, pad, st, dil)
                elif kind == "avg_pool2d":
                    okk.okk_bdc_avg_pool2d(OUT, IN, ish, win.kh, win.kw, pad, st)
                else:
                    okk.okk_bdc_max_pool2d(OUT, IN, ish, win.kh, win.kw, pad, st)
                osh = okk.dim4(1, on, rn, ow)
                okk.okk_gdma_32bit_cpy_L2S(dst + 4 * (b * oc * oh * ow + o0 * oh * ow + r0 * ow), OUT, osh, dst_st, None)
    okk.okk_poll()


def reference(kind: str, x: np.ndarray, win: Window, wt: np.ndarray | None = None) -> np.ndarray:
    """float64 NCHW reference (pool padding: zeros counted for avg, -inf for max)."""
    n, c, h, w = x.shape
    oh, ow = win.out_hw(h, w)
    pt, pb, pl, pr = win.pad
    fill = -np.inf if kind == "max_pool2d" else 0.0
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=fill)
    sh, sw = win.stride
    dh, dw = win.dilation
    acc = None
    for i in range(win.kh):
        for j in range(win.kw):
            t = xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
            if kind == "conv2d":
                v = np.einsum("nchw,oc->nohw", t, wt[:, :, i, j].astype(np.float64), optimize=True)
            elif kind == "depthwise2d":
                v = t * wt[None, :, i, j, None, None]
            else:
                v = t
            acc = v if acc is None else (np.maximum(acc, v) if kind == "max_pool2d" else acc + v)
    return acc / (win.kh * win.kw) if kind == "avg_pool2d" else acc


def to_2ic(wt: np.ndarray) -> np.ndarray:
    """[OC][IC][kh][kw] -> the 2IC host layout [ceil(IC/2)][OC][kh][kw][2] (S2 host/conv2d.cpp)."""
    oc, ic, kh, kw = wt.shape
    out = np.zeros((-(-ic // 2), oc, kh, kw, 2), np.float32)
    for c in range(ic):
        out[c // 2, :, :, :, c % 2] = wt[:, c]
    return out


def plan_cycles(kind: str, shape, win: Window, c_tile: int, out_c: int | None = None,
                oc_tile: int | None = None) -> int:
    """Modelled cycles of run_window's instruction sequence without computing anything: the same loops,
    each call replaced by its cost formula (GDMA: cost.gdma_cycles over gdma_run_bytes; BDC: conv_cycles /
    pool_cycles). Equal to the simulated total (tests/okk/test_audit_examples.py checks it)."""
    from npusim.okk import cost
    from npusim.okk.bdc_conv import conv_cycles
    from npusim.okk.bdc_depthwise_pool import pool_cycles

    def gdma(kind_, shp, dst_st, src_st, dst_local, src_local):
        run = cost.gdma_run_bytes(4, shp, dst_st, src_st, dst_local, src_local)
        return cost.gdma_cycles(kind_, 4 * shp[0] * shp[1] * shp[2] * shp[3], run)

    def aligned(shp):
        s = okk.okk_128_byte_aligned_stride_for_32bit(None, 0, okk.dim4(*shp))
        return (s.n, s.c, s.h, s.w)

    n, c, h, w = shape
    oc = out_c if kind == "conv2d" else c
    oh, ow = win.out_hw(h, w)
    groups = [(0, c, o0, min(oc_tile, oc - o0)) for o0 in range(0, oc, oc_tile)] if kind == "conv2d" else \
        [(c0, min(c_tile, c - c0), c0, min(c_tile, c - c0)) for c0 in range(0, c, c_tile)]
    src_st = (c * h * w, h * w, w, 1)
    dst_st = (oc * oh * ow, oh * ow, ow, 1)
    total = 0
    for ci, cn, o0, on in groups:
        if kind == "conv2d":
            kh, kw, ic2 = win.kh, win.kw, -(-c // 2)
            k = okk.okk_compact_stride(None, 0, okk.dim4(ic2, on, kh, kw))
            total += gdma("S2L", (ic2, on, kh, 2 * kw), (2 * k.n, 2 * k.c, 2 * k.h, 1),
                          (oc * kh * kw * 2, kh * kw * 2, kw * 2, 1), True, False)
        elif kind == "depthwise2d":
            k = okk.okk_compact_stride(None, 0, okk.dim4(1, cn, win.kh, win.kw))
            total += gdma("S2L", (1, cn, win.kh, win.kw), (k.n, k.c, k.h, k.w),
                          (cn * win.kh * win.kw, win.kh * win.kw, win.kw, 1), True, False)
        for _ in range(n):
            for r0, rn, i0, inn, ptop, pbot in row_tiles(win, h, w, cn, on):
                ish = (1, cn, inn, w)
                total += gdma("S2L", ish, aligned(ish), src_st, True, False)
                if kind == "conv2d":
                    total += conv_cycles(0, 1, on, rn, ow, win.kh, win.kw, c, False, win.stride[1])
                else:
                    total += pool_cycles(0, 1, cn, rn, ow, win.kh, win.kw, win.stride[1], kind == "max_pool2d")
                osh = (1, on, rn, ow)
                total += gdma("L2S", osh, dst_st, aligned(osh), False, True)
    return total
