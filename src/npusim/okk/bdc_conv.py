"""okk_bdc_conv2d: one CONV_FP32 instruction (reference §2.5, §3, §4.7; okkernel_cycles.md §3).

Weights are in 2IC mode: the tensor (ceil(IC/2), OC, kh, kw) of fp32 pairs (input channels 2m, 2m+1),
``kernel_stride`` in pair units (NULL: compact). Output, weight and bias start on the same NPU; the
input need not. Accumulation order: see ``ORDER`` and docs/okk.md, part two.
Cost: ``trunc(N * ceil((q + OC)/64) * ceil(OH*OW/16) * (kh*kw*ceil(IC/2)*s*a + 3 + 2*bias))`` with
s = (stride_w + 1)/min(IC, 64) if stride_w >= min(IC, 64) else 1, a = 2.5 if IC == 3 else 1.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..core.errors import ConstraintError
from . import fp32, spec
from .device import BDC, current
from . import native_mac
from .fastsum import plain_paths
from .fp32 import F32
from .nan_payload import keep_first_nan
from .layout import LANE, LocalTensor, compact_stride
from .nn_common import check_addrs, daz_padded, dim2_arg, kernel_arg, out_size, padding_arg, tap
from .rules import shape_bdc
from .types import as_dim4, dim4

# Processing order of (pair, tap) items: taps outer (t = i*kw + j), input-channel pairs inner. Pinned
# by the differential suite (bit-exact for IC 1..33, k up to 5, padding, stride, dilation); the
# "ic_outer" alternative is kept for experiments.
ORDER = "tap_outer"
# Output elements per row block: the accumulators and the product buffer stay in cache.
BLOCK = 1 << 16
# Multiply-adds from which row blocks are spread over WORKERS threads.
PARALLEL_MIN = 1 << 22
WORKERS = min(4, os.cpu_count() or 1)
_POOL = []


def _pool() -> ThreadPoolExecutor:
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(WORKERS, thread_name_prefix="okk-conv"))
    return _POOL[0]


def conv_cycles(q, n, oc, oh, ow, kh, kw, ic, bias: bool, stride_w: int = 1) -> int:
    """Sophgo's CONV_FP32 cost, in the C-model's own mixed float/double arithmetic (read from
    atomic_conv_forward_get_cycle in libbackend_bm1684.so, then checked against random sweeps):
    the input fetch limits the unit when stride_w >= min(IC, 64), which scales the tap term by
    s = (stride_w + 1) / min(IC, 64); IC = 3 runs at 2.5x the cost per tap."""
    f = np.float32
    lanes = min(ic, spec.NPU_NUM)
    s = f(stride_w + 1) / f(lanes) if lanes <= stride_w else f(1.0)
    taps = float(s * f(kh * kw * ((ic + 1) // 2)))        # product in float32, the rest in double
    per = taps * (2.5 if ic == 3 else 1.0) + (2.0 if bias else 0.0) + 3.0
    blocks = n * (-(-(q + oc) // spec.NPU_NUM)) * (-(-(oh * ow) // 16))
    return int(f(per * float(blocks)))


def conv_sum(xp, wv, kh, kw, oh, ow, st, dil, order=None) -> np.ndarray:
    """The CONV unit's fp32 sum; xp (N, IC, Hp, Wp) padded DAZ'd input, wv (OC, IC, kh, kw) DAZ'd.

    Model: the unit steps through (input-channel pair m, tap t) items in ORDER; item number s goes to
    accumulator s % 2 of each of the two input-channel lanes (ic = 2m + lane), sequential and
    unfused; lane_p = acc[p][1] + acc[p][0] (odd first: its NaN wins a pair, as in the C-model);
    out = lane_0 + lane_1. Computed in blocks of output rows that stay in cache, without FTZ passes
    when no product can be subnormal (fastsum), then in native code when no input is a NaN (native_mac)."""
    order = order or ORDER
    n, ic = xp.shape[:2]
    oc = wv.shape[0]
    fast, native = plain_paths(xp, wv)
    cs, ts, accs = _items(ic, kh * kw, order)
    if native:
        return _conv_native(xp, wv, cs, ts, accs, kw, oh, ow, st, dil)
    rch = max(1, BLOCK // max(1, n * oc * ow))
    span = (kh - 1) * dil[0] + 1
    out = np.empty((n, oc, oh, ow), F32)
    wt = wv.reshape(oc, ic, kh * kw)
    plan = [((int(k) // 2, int(k) % 2), int(c), int(t) // kw, int(t) % kw,
             np.ascontiguousarray(wt[:, c, t]).reshape(1, oc, 1, 1)) for c, t, k in zip(cs, ts, accs)]
    def block(r0):
        rn = min(rch, oh - r0)
        sub = xp[:, :, r0 * st[0]:(r0 + rn - 1) * st[0] + span]
        acc = {}
        prod = np.empty((n, oc, rn, ow), F32)
        with np.errstate(all="ignore"):                  # errstate is per thread
            for key, c, i, j, w in plan:
                x = tap(sub[:, c:c + 1], i, j, rn, ow, st, dil)          # (N, 1, rn, OW)
                if fast:
                    if key in acc:
                        np.multiply(x, w, out=prod)
                        np.add(acc[key], prod, out=acc[key])
                    else:
                        acc[key] = np.multiply(x, w)
                else:
                    p = fp32.mul(x, w)
                    acc[key] = p if key not in acc else fp32.add(acc[key], p)
            dst = out[:, :, r0:r0 + rn]
            if fast:
                _combine_plain(acc, dst)
            else:
                zero = np.zeros((n, oc, rn, ow), F32)
                lanes = [fp32.add(acc.get((p, 1), zero), acc.get((p, 0), zero)) for p in (0, 1)]
                dst[...] = fp32.add(lanes[0], lanes[1])

    starts = range(0, oh, rch)
    if len(starts) > 1 and n * oc * oh * ow * len(plan) >= PARALLEL_MIN:
        # row blocks are independent and numpy releases the GIL: the result does not depend on this
        list(_pool().map(block, starts))
    else:
        for r0 in starts:
            block(r0)
    return out


def _items(ic: int, ntaps: int, order: str):
    """The unit's products in processing order: input channel c, tap t and accumulator 2*lane + s % 2 of
    each (item s = (pair m, tap t); lane 0 is channel 2m, lane 1 channel 2m + 1 when it exists)."""
    ic2 = -(-ic // 2)
    s = np.arange(ntaps * ic2)
    t, m = np.divmod(s, ic2) if order == "tap_outer" else np.divmod(s, ntaps)[::-1]
    lane = np.tile(np.arange(2), s.size)
    c = 2 * np.repeat(m, 2) + lane
    keep = c < ic
    return c[keep], np.repeat(t, 2)[keep], (2 * lane + np.repeat(s % 2, 2))[keep].astype(np.int32)


def _conv_native(xp, wv, cs, ts, accs, kw, oh, ow, st, dil) -> np.ndarray:
    """The fast path in native code (native_mac): same items, same accumulators, same combine. An
    accumulator that receives products starts from -0 (the additive identity, so it equals the first
    product); one that never does starts from +0, as _combine_plain adds it."""
    n, ic = xp.shape[:2]
    oc, kh = wv.shape[0], wv.shape[2]
    ph, tap_off = native_mac.phases(xp, st, dil, [(i, j) for i in range(kh) for j in range(kw)])
    off = cs * ph[0, 0].size + np.array(tap_off, np.int64)[ts]
    witem = np.ascontiguousarray(wv.reshape(oc, ic, kh * kw)[:, cs, ts].T)
    init = np.array([-0.0 if k in accs else 0.0 for k in range(4)], F32)
    out = np.empty((n, oc, oh, ow), F32)
    if n * oc * oh * ow * len(cs) < PARALLEL_MIN or WORKERS == 1:
        native_mac.conv2ic(ph, witem, off, accs, init, out, 0, oc)
        return out
    # images, else output channels, are independent; the GIL is released while the kernel runs
    if n >= WORKERS:
        cuts = [n * k // WORKERS for k in range(WORKERS + 1)]
        run = lambda k: native_mac.conv2ic(ph[cuts[k]:cuts[k + 1]], witem, off, accs, init,  # noqa: E731
                                           out[cuts[k]:cuts[k + 1]], 0, oc)
    else:
        cuts = [oc * k // WORKERS for k in range(WORKERS + 1)]
        run = lambda k: native_mac.conv2ic(ph, witem, off, accs, init, out, cuts[k], cuts[k + 1])  # noqa: E731
    list(_pool().map(run, range(WORKERS)))
    return out


def _combine_plain(acc: dict, dst: np.ndarray) -> None:
    """dst = (acc01 + acc00) + (acc11 + acc10) in plain float32, a missing accumulator being +0 (so a
    lone -0 still becomes +0, as in the FTZ path). Exact when no product is subnormal (fastsum)."""
    zero = F32(0.0)
    lanes = []
    for p in (0, 1):
        a, b = acc.get((p, 0)), acc.get((p, 1))
        if a is None and b is None:
            lanes.append(None)
        elif a is None or b is None:
            lanes.append(np.add(a if b is None else b, zero))
        else:
            lanes.append(np.add(b, a, out=a))
    l0, l1 = lanes
    if l1 is None:
        np.add(l0, zero, out=dst)
    else:
        np.add(l0, l1, out=dst)


def okk_bdc_conv2d(output_addr, input_addr, weight_addr, bias_addr, input_shape, output_c, kernel_h, kernel_w,
                   input_stride, kernel_stride, using_bias, result_add, padding=None, stride=None,
                   dilation=None) -> None:
    """out[n, oc] = sum_{ic,i,j} in_padded[n, ic, oh*sh + i*dh, ow*sw + j*dw] * W[oc, ic, i, j]
    (+ bias[oc]) (+ out when result_add)."""
    api = "okk_bdc_conv2d"
    dev = current()
    shape = as_dim4(api, "input_shape", input_shape)
    shape_bdc(api, shape)
    n, ic, h, w = shape.tuple()
    if not (isinstance(output_c, (int, np.integer)) and 1 <= output_c <= spec.MAX_C):
        raise ConstraintError(api, "output_c", "output_c is in [1, 4095]", output_c)
    oc = int(output_c)
    kh, kw = kernel_arg(api, "kernel_h", kernel_h), kernel_arg(api, "kernel_w", kernel_w)
    pad = padding_arg(api, padding)
    st = dim2_arg(api, "stride", stride)
    dil = dim2_arg(api, "dilation", dilation)
    oh, ow = out_size(api, h, w, kh, kw, pad, st, dil)
    # 2IC fp32 weights are 8-byte aligned: the C-model asserts "weight_addr % 8 == 0" (atomic_conv_neuron)
    addrs = {"output_addr": (output_addr, 128), "input_addr": (input_addr, 4), "weight_addr": (weight_addr, 8)}
    same = {"output_addr": output_addr, "weight_addr": weight_addr}
    if using_bias:
        addrs["bias_addr"] = (bias_addr, 4)
        same["bias_addr"] = bias_addr
    check_addrs(api, addrs, same)
    for name, s in (("input_stride", input_stride), ("kernel_stride", kernel_stride)):
        if s is not None and not isinstance(s, dim4):
            raise ConstraintError(api, name, f"{name} is a dim4 or NULL", s)
    if kernel_stride is not None and kernel_stride.w != 1 and kw != 1:     # one tap per row: w unused (C-model)
        raise ConstraintError(api, "kernel_stride->w", "kernel_stride->w is 1 (pairs of input channels are "
                              "contiguous)", kernel_stride.w)
    q = int(output_addr) // LANE
    qw = int(weight_addr) // LANE
    ic2 = -(-ic // 2)
    wsh = dim4(ic2, oc, kh, kw)
    ks = kernel_stride if kernel_stride is not None else compact_stride(None, qw, wsh)
    wt = LocalTensor(dev.local, api, "weight_addr", weight_addr, dim4(ic2, oc, kh, 2 * kw),
                     dim4(2 * ks.n, 2 * ks.c, 2 * ks.h, 1), F32, 4)
    inp = LocalTensor(dev.local, api, "input_addr", input_addr, shape, input_stride, F32, 4)
    out = LocalTensor(dev.local, api, "output_addr", output_addr, dim4(n, oc, oh, ow), None, F32, 4)
    # (IC2, OC, kh, kw, 2) -> (OC, IC, kh, kw); an odd IC ignores the last pair's second half, which is
    # not read (so it need not be written: no never-written warning, as in the C-model)
    if ic % 2:
        w5 = np.zeros((ic2, oc, kh, kw, 2), F32)
        if ic2 > 1:
            w5[:-1] = fp32.daz(LocalTensor(dev.local, api, "weight_addr", weight_addr, dim4(ic2 - 1, oc, kh, 2 * kw),
                                           dim4(2 * ks.n, 2 * ks.c, 2 * ks.h, 1), F32, 4).read()).reshape(
                                               ic2 - 1, oc, kh, kw, 2)
        last = LocalTensor(dev.local, api, "weight_addr", int(weight_addr) + 8 * (ic2 - 1) * ks.n,
                           dim4(1, oc, kh, kw), dim4(2 * ks.n, 2 * ks.c, 2 * ks.h, 2), F32, 4)
        w5[-1:, :, :, :, 0] = fp32.daz(last.read())
    else:
        w5 = fp32.daz(wt.read()).reshape(ic2, oc, kh, kw, 2)
    wv = np.ascontiguousarray(w5.transpose(1, 0, 4, 2, 3).reshape(oc, 2 * ic2, kh, kw)[:, :ic])
    xp = daz_padded(inp.read(), pad)
    res = conv_sum(xp, wv, kh, kw, oh, ow, st, dil)
    reads = inp.footprints + wt.footprints
    if using_bias:
        bsh = dim4(1, oc, 1, 1)
        bt = LocalTensor(dev.local, api, "bias_addr", bias_addr, bsh, compact_stride(None, q, bsh), F32, 4)
        bias = fp32.daz(bt.read())
        res = keep_first_nan(fp32.add(res, bias), res, bias)
        reads += bt.footprints
    if result_add:
        old = fp32.daz(out.read())
        res = keep_first_nan(fp32.add(res, old), res, old)     # new + old: its NaN wins a pair
        reads += out.footprints
    out.write(res)
    dev.issue(BDC, api, "CONV_FP32", conv_cycles(q, n, oc, oh, ow, kh, kw, ic, bool(using_bias), st[1]),
              reads=reads, writes=out.footprints, elements=n * oc * oh * ow * ic * kh * kw)


__all__ = ["okk_bdc_conv2d"]
