"""okk_bdc_depthwise2d, okk_bdc_avg_pool2d, okk_bdc_max_pool2d: one DEPTHWISE_FP32 / POOLING_FP32
instruction each (okkernel_cycles.md §3).

Numerics (reference §4.7 and differential probes, docs/okk.md, part two): depthwise keeps two fp32
accumulators over the flattened tap index t = i*kw + j (even t, odd t), each sequential and unfused,
summed at the end, then the bias added; padded taps contribute fl(0 * w). avg_pool is depthwise with
every weight fl(1 / (kh*kw)) (padding counts as zeros); max_pool keeps the DAZ'd
running ``x > m ? x : m`` from -FLT_MAX (the pad value, 0xff7fffff).
Cost: ``N * ceil((q + C)/64) * ceil(OH*OW/16) * ((stride_w + 1)*kh*kw - kh + 5*[not max-pool])``.
"""
from __future__ import annotations

import numpy as np

from . import args, fp32, spec
from .device import BDC, current
from . import native_mac
from .fastsum import LIMIT, scan, smallest_nonzero
from .fp32 import F32
from .nan_payload import keep_first_nan
from .layout import LANE, compact_stride
from .nn_common import check_addrs, daz_padded, dim2_arg, kernel_arg, out_size, padded, padding_arg, tap
from .rules import shape_bdc
from .types import dim4

FLT_MAX = np.float32(3.4028234663852886e38)


def pool_cycles(q, n, c, oh, ow, kh, kw, sw, is_max: bool) -> int:
    return n * (-(-(q + c) // spec.NPU_NUM)) * (-(-(oh * ow) // 16)) * ((sw + 1) * kh * kw - kh + (0 if is_max else 5))


def _common(api, output_addr, input_addr, input_shape, kernel_h, kernel_w, padding, stride, dilation):
    dev = current()
    shape = args.dim4_arg(api, "input_shape", input_shape)
    pool = "pool" in api
    # The C-model pools c > 4095 right, and pools more than the work limit (4,280,640 inputs in the
    # contest sweep): a pool's input is compact and bounds-checked in local memory, which already bounds
    # its work (<= 2^23 fp32 inputs).
    shape_bdc(api, shape, check_work=not pool, c_documented_only=pool)
    kh, kw = kernel_arg(api, "kernel_h", kernel_h), kernel_arg(api, "kernel_w", kernel_w)
    pad = padding_arg(api, padding)
    st = dim2_arg(api, "stride", stride)
    dil = dim2_arg(api, "dilation", dilation)
    n, c, h, w = shape.tuple()
    oh, ow = out_size(api, h, w, kh, kw, pad, st, dil)
    return dev, shape, (n, c, h, w), kh, kw, pad, st, dil, oh, ow


def _tensors(dev, api, output_addr, input_addr, n, c, h, w, oh, ow):
    # the device's operand cache (validated once per distinct address/shape/stride): kernels repeat these
    inp = dev.local_tensor(api, "input_addr", input_addr, dim4(n, c, h, w), None, F32, 4)
    out = dev.local_tensor(api, "output_addr", output_addr, dim4(n, c, oh, ow), None, F32, 4)
    return inp, out


def even_odd_taps(xp, wt, kh, kw, oh, ow, st, dil, wmin=None) -> np.ndarray:
    """fl(acc_even + acc_odd) over taps t = i*kw + j (acc_odd from +0); ``wt`` is the (C, kh, kw) weights
    or one float32 for every tap. Blocks of output rows stay in cache; no FTZ passes when no product
    can be subnormal (fastsum, ``wmin`` = the smallest nonzero |weight|), and then native code when
    available and no input is a NaN (native_mac)."""
    n, c = xp.shape[:2]
    sx = scan(xp) if wmin is not None else float("nan")
    fast = wmin is not None and (wmin == float("inf") or sx * wmin >= LIMIT)
    if fast and sx == sx and wmin == wmin and native_mac.enabled():
        wtab = wt.reshape(c, kh * kw) if np.ndim(wt) else np.full((c, kh * kw), wt, F32)
        return native_mac.even_odd_taps(xp, wtab, kh, kw, oh, ow, st, dil)
    weights = (lambda i, j: wt[None, :, i, j, None, None]) if np.ndim(wt) else (lambda i, j: wt)  # noqa: E731
    rch = max(1, (1 << 16) // max(1, n * c * ow))
    span = (kh - 1) * dil[0] + 1
    out = np.empty((n, c, oh, ow), F32)
    with np.errstate(all="ignore"):
        for r0 in range(0, oh, rch):
            rn = min(rch, oh - r0)
            sub = xp[:, :, r0 * st[0]:(r0 + rn - 1) * st[0] + span]
            accs = [None, None]
            prod = np.empty((n, c, rn, ow), F32)
            for i in range(kh):
                for j in range(kw):
                    k = (i * kw + j) % 2
                    x = tap(sub, i, j, rn, ow, st, dil)
                    if fast:
                        if accs[k] is None:
                            accs[k] = np.multiply(x, weights(i, j), dtype=F32)
                        else:
                            np.multiply(x, weights(i, j), out=prod)
                            np.add(accs[k], prod, out=accs[k])
                    else:
                        p = fp32.mul(x, weights(i, j))
                        accs[k] = p if accs[k] is None else fp32.add(accs[k], p)
            # Zero signs (C-model): one tap gives the product itself (-0 stays -0); from two taps on
            # the odd accumulator starts from +0, so the sum is never -0: add +0 to the sum.
            if accs[1] is None:
                out[:, :, r0:r0 + rn] = accs[0]
            else:
                out[:, :, r0:r0 + rn] = fp32.add(fp32.add(accs[0], accs[1]), F32(0.0))
    return out


def okk_bdc_depthwise2d(output_addr, input_addr, weight_addr, bias_addr, input_shape, kernel_h, kernel_w,
                        using_bias, padding=None, stride=None, dilation=None) -> None:
    """out[n,c] = sum_{i,j} in_padded[n, c, oh*sh + i*dh, ow*sw + j*dw] * weight[c, i, j] (+ bias[c])."""
    api = "okk_bdc_depthwise2d"
    dev, shape, (n, c, h, w), kh, kw, pad, st, dil, oh, ow = _common(
        api, output_addr, input_addr, input_shape, kernel_h, kernel_w, padding, stride, dilation)
    addrs = {"output_addr": (output_addr, 128), "input_addr": (input_addr, 128), "weight_addr": (weight_addr, 4)}
    same = {"output_addr": output_addr, "input_addr": input_addr, "weight_addr": weight_addr}
    if using_bias:
        addrs["bias_addr"] = (bias_addr, 4)
        same["bias_addr"] = bias_addr
    check_addrs(api, addrs, same)
    inp, out = _tensors(dev, api, output_addr, input_addr, n, c, h, w, oh, ow)
    q = int(output_addr) // LANE
    wsh = dim4(1, c, kh, kw)
    wt = dev.local_tensor(api, "weight_addr", weight_addr, wsh, compact_stride(None, q, wsh), F32, 4)
    wv = fp32.daz(wt.read())[0]                                   # (C, kh, kw)
    xp = daz_padded(inp.read(), pad)
    res = even_odd_taps(xp, wv, kh, kw, oh, ow, st, dil, smallest_nonzero(wv))
    reads = inp.footprints + wt.footprints
    if using_bias:
        bsh = dim4(1, c, 1, 1)
        bt = dev.local_tensor(api, "bias_addr", bias_addr, bsh, compact_stride(None, q, bsh), F32, 4)
        bias = fp32.daz(bt.read())
        res = keep_first_nan(fp32.add(res, bias), res, bias)
        reads += bt.footprints
    out.write(res)
    dev.issue(BDC, api, "DEPTHWISE_FP32", pool_cycles(q, n, c, oh, ow, kh, kw, st[1], False),
              reads=reads, writes=out.footprints, elements=n * c * oh * ow * kh * kw)


def _pool(api, output_addr, input_addr, input_shape, kernel_h, kernel_w, padding, stride, is_max):
    dev, shape, (n, c, h, w), kh, kw, pad, st, dil, oh, ow = _common(
        api, output_addr, input_addr, input_shape, kernel_h, kernel_w, padding, stride, None)
    check_addrs(api, {"output_addr": (output_addr, 128), "input_addr": (input_addr, 128)},
                {"output_addr": output_addr, "input_addr": input_addr})
    inp, out = _tensors(dev, api, output_addr, input_addr, n, c, h, w, oh, ow)
    x = fp32.daz(inp.read())
    if is_max:
        xp = padded(x, pad, -FLT_MAX)
        m = np.full((n, c, oh, ow), -FLT_MAX, F32)
        with np.errstate(all="ignore"):
            for i in range(kh):
                for j in range(kw):
                    t = tap(xp, i, j, oh, ow, st, dil)
                    m = np.where(t > m, t, m)
        res = m
    else:
        xp = padded(x, pad, 0.0)
        inv = F32(1.0) / F32(kh * kw)
        res = even_odd_taps(xp, inv, kh, kw, oh, ow, st, dil, float(inv))
    out.write(res)
    q = int(output_addr) // LANE
    dev.issue(BDC, api, "POOLING_FP32", pool_cycles(q, n, c, oh, ow, kh, kw, st[1], is_max),
              reads=inp.footprints, writes=out.footprints, elements=n * c * oh * ow * kh * kw)


def okk_bdc_avg_pool2d(output_addr, input_addr, input_shape, kernel_h, kernel_w, padding=None, stride=None) -> None:
    """Average over each kh x kw window, padding counted as zeros (divides by kh*kw)."""
    _pool("okk_bdc_avg_pool2d", output_addr, input_addr, input_shape, kernel_h, kernel_w, padding, stride, False)


def okk_bdc_max_pool2d(output_addr, input_addr, input_shape, kernel_h, kernel_w, padding=None, stride=None) -> None:
    """Maximum over each kh x kw window; padding reads as -FLT_MAX."""
    _pool("okk_bdc_max_pool2d", output_addr, input_addr, input_shape, kernel_h, kernel_w, padding, stride, True)


__all__ = ["okk_bdc_depthwise2d", "okk_bdc_avg_pool2d", "okk_bdc_max_pool2d"]
