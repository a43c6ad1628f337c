"""Drivers and float64 numpy references for running OKKernel .c kernels in tests (the contest hosts' role:
upload inputs, fill param_t with their addresses, run, read outputs, compare with the contest tolerance)."""
from __future__ import annotations

import os

import numpy as np

from npusim import okk

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "c")
G = okk.spec.GLOBAL_MEM_START
ALIGN = 4096


def run(kernel, entry: str, fields: dict, inputs: dict, outputs: dict, global_mem_bytes: int = 1 << 28):
    """Upload ``inputs`` (param field -> array), reserve ``outputs`` (field -> shape, float32), run.
    Returns (outputs as arrays, RunResult, device)."""
    fields = dict(fields)
    dev = okk.Device(global_mem_bytes=global_mem_bytes)
    addr = G
    where = {}
    with dev:
        for name, arr in inputs.items():
            dev.write_system(addr, np.ascontiguousarray(arr, np.float32))
            fields[name] = addr
            addr += -(-arr.nbytes // ALIGN) * ALIGN
        for name, shape in outputs.items():
            fields[name], where[name] = addr, shape
            addr += -(-int(np.prod(shape)) * 4 // ALIGN) * ALIGN
        r = kernel.run(entry, fields)
        got = {n: dev.read_system(fields[n], s, np.float32) for n, s in where.items()}
    return got, r, dev


def close(got, ref, tol):
    """The contest check: |out - ref| < tol * max(|out|, |ref|, 1) everywhere."""
    got = np.asarray(got, np.float64)
    return bool(np.all(np.abs(got - ref) < tol * np.maximum(np.maximum(np.abs(got), np.abs(ref)), 1)))


def out_hw(H, W, kh, kw, pads, stride, dilation=(1, 1), ceil_mode=False):
    t, b, l, r = pads
    eh, ew = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    if ceil_mode:
        return -(-(H + t + b - eh) // stride[0]) + 1, -(-(W + l + r - ew) // stride[1]) + 1
    return (H + t + b - eh) // stride[0] + 1, (W + l + r - ew) // stride[1] + 1


def _taps(x, kh, kw, pads, stride, dilation, oh, ow, fill=0.0):
    """Yield (i, j, window) with window[n, c, oh, ow] = padded input at the tap (i, j)."""
    t, b, l, r = pads
    N, C, H, W = x.shape
    need_h = (oh - 1) * stride[0] + (kh - 1) * dilation[0] + 1
    need_w = (ow - 1) * stride[1] + (kw - 1) * dilation[1] + 1
    xp = np.full((N, C, max(H + t + b, need_h), max(W + l + r, need_w)), fill, np.float64)
    xp[:, :, t:t + H, l:l + W] = x
    for i in range(kh):
        for j in range(kw):
            h0, w0 = i * dilation[0], j * dilation[1]
            yield i, j, xp[:, :, h0:h0 + (oh - 1) * stride[0] + 1:stride[0], w0:w0 + (ow - 1) * stride[1] + 1:stride[1]]


def conv2d_ref(x, w, pads=(0, 0, 0, 0), stride=(1, 1), dilation=(1, 1)):
    """x (N, IC, H, W), w (OC, IC, kh, kw) -> (N, OC, oh, ow), float64."""
    OC, IC, kh, kw = w.shape
    oh, ow = out_hw(x.shape[2], x.shape[3], kh, kw, pads, stride, dilation)
    out = np.zeros((x.shape[0], OC, oh, ow))
    for i, j, win in _taps(x, kh, kw, pads, stride, dilation, oh, ow):
        out += np.tensordot(w[:, :, i, j].astype(np.float64), win, axes=([1], [1])).transpose(1, 0, 2, 3)
    return out


def depthwise_ref(x, w, pads=(0, 0, 0, 0), stride=(1, 1), dilation=(1, 1)):
    """x (N, C, H, W), w (C, kh, kw)."""
    C, kh, kw = w.shape
    oh, ow = out_hw(x.shape[2], x.shape[3], kh, kw, pads, stride, dilation)
    out = np.zeros((x.shape[0], C, oh, ow))
    for i, j, win in _taps(x, kh, kw, pads, stride, dilation, oh, ow):
        out += win * w[None, :, i, j, None, None]
    return out


def max_pool_ref(x, kh, kw, pads, stride, ceil_mode=False):
    oh, ow = out_hw(x.shape[2], x.shape[3], kh, kw, pads, stride, ceil_mode=ceil_mode)
    lowest = -float(np.finfo(np.float32).max)          # the contest host's start value and okk's pad value
    out = np.full((x.shape[0], x.shape[1], oh, ow), lowest)
    for _, _, win in _taps(x, kh, kw, pads, stride, (1, 1), oh, ow, fill=lowest):
        out = np.maximum(out, win)
    return out


def avg_pool_ref(x, kh, kw, pads, stride, ceil_mode=False, count_include_pad=True):
    """The contest host's avg_pool reference (window clipped to the padded input, divided by its size, or
    by the count of real inputs without count_include_pad)."""
    t, b, l, r = pads
    N, C, H, W = x.shape
    oh, ow = out_hw(H, W, kh, kw, pads, stride, ceil_mode=ceil_mode)
    out = np.zeros((N, C, oh, ow))
    for i in range(oh):
        for j in range(ow):
            hs, ws = i * stride[0], j * stride[1]
            he, we = min(hs + kh, H + t + b), min(ws + kw, W + l + r)
            size = (he - hs) * (we - ws)
            hs, ws, he, we = max(hs - t, 0), max(ws - l, 0), min(he - t, H), min(we - l, W)
            if not count_include_pad:
                size = (he - hs) * (we - ws)
            out[:, :, i, j] = x[:, :, hs:he, ws:we].astype(np.float64).sum(axis=(2, 3)) / size
    return out


def softmax_ref(x, axis=1):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def weights_2ic(w):
    """(OC, IC, kh, kw) -> the contest host's 2IC layout ((IC+1)//2, OC, kh, kw, 2), zero in the unused half."""
    OC, IC, kh, kw = w.shape
    out = np.zeros(((IC + 1) // 2, OC, kh, kw, 2), np.float32)
    for ic in range(IC):
        out[ic // 2, :, :, :, ic % 2] = w[:, ic]
    return out


def run_both(path: str, entry: str, fields: dict, inputs: dict, outputs: dict, defines=None, **cmodel_options):
    """The same .c on npusim and on Sophgo's C-model (same addresses, same param bytes).
    Returns (npusim outputs, npusim RunResult, C-model outputs, C-model CModelRun)."""
    from npusim.okk.c.cmodel_route import run_on_cmodel
    from npusim.okk.c.param import pack
    kernel = okk.load_c(path, defines=defines)
    got, r, _ = run(kernel, entry, fields, inputs, outputs)
    full = dict(fields)
    addr, writes, reads = G, [], []
    for name, arr in inputs.items():
        raw = np.ascontiguousarray(arr, np.float32).tobytes()
        writes.append((addr, raw))
        full[name] = addr
        addr += -(-len(raw) // ALIGN) * ALIGN
    for name, shape in outputs.items():
        full[name] = addr
        reads.append((addr, int(np.prod(shape)) * 4))
        addr += -(-int(np.prod(shape)) * 4 // ALIGN) * ALIGN
    cm = run_on_cmodel(path, entry, bytes(pack(kernel.param_type(), full)), writes, reads, defines=defines,
                       **cmodel_options)
    ref = {n: np.frombuffer(b, np.float32).reshape(outputs[n]) for n, b in zip(outputs, cm.reads)}
    return got, r, ref, cm


# The contest-1 cases (the contest hosts' tables, host/*.cpp; reference okkernel.md §5), in the hosts' order.
# softmax (N, C, H, W); matmul (M, K, N); depthwise (N, C, H, W, kh, kw, top, bottom, left, right, sh, sw,
# dh, dw); conv2d (N, IC, OC, H, W, kh, kw, top, bottom, left, right, sh, sw, dh, dw).
CONTEST_SOFTMAX = dict(enumerate([(1, 370, 13, 13), (1, 1000, 1, 1), (4, 2, 157, 283), (79, 4090, 1, 1),
                                  (6132, 21, 1, 1)]))
CONTEST_MATMUL = dict(enumerate([(2, 100352, 2048), (2, 1280, 1000), (2, 25088, 4096), (4, 1024, 25088),
                                 (32, 2048, 36), (64, 9216, 4096), (79, 256, 4090), (200, 4096, 324),
                                 (256, 768, 3072), (256, 3072, 768), (300, 2048, 80), (1024, 1024, 1024),
                                 (2048, 4, 1024), (12544, 2, 1024), (100352, 1024, 1)]))
CONTEST_DEPTHWISE = dict(enumerate([
    (4, 3, 224, 224, 11, 11, 2, 2, 2, 2, 4, 4, 1, 1), (4, 3, 256, 256, 7, 7, 3, 3, 3, 3, 2, 2, 1, 1),
    (4, 3, 640, 640, 3, 3, 1, 1, 1, 1, 2, 2, 1, 1), (4, 96, 150, 150, 3, 3, 1, 1, 1, 1, 2, 2, 1, 1),
    (4, 144, 75, 75, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1), (4, 192, 38, 38, 3, 3, 1, 1, 1, 1, 2, 2, 1, 1),
    (4, 336, 29, 29, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1), (4, 512, 14, 14, 3, 3, 0, 1, 0, 1, 2, 2, 1, 1),
    (4, 960, 28, 28, 3, 3, 4, 4, 4, 4, 1, 1, 4, 4), (4, 2048, 33, 33, 3, 3, 6, 6, 6, 6, 1, 1, 6, 6)]))
CONTEST_CONV2D = dict(enumerate([
    (4, 3, 16, 640, 640, 3, 3, 1, 1, 1, 1, 2, 2, 1, 1), (4, 3, 16, 512, 960, 7, 7, 3, 3, 3, 3, 1, 1, 1, 1),
    (4, 3, 16, 1080, 1920, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1), (4, 3, 24, 384, 384, 7, 7, 1, 2, 1, 2, 4, 4, 1, 1),
    (4, 3, 96, 227, 227, 11, 11, 0, 0, 0, 0, 4, 4, 1, 1), (4, 3, 192, 127, 127, 11, 11, 0, 0, 0, 0, 2, 2, 1, 1),
    (4, 18, 36, 192, 256, 3, 3, 1, 1, 1, 1, 2, 2, 1, 1), (4, 72, 72, 160, 160, 3, 3, 1, 1, 1, 1, 2, 2, 1, 1),
    (4, 128, 256, 50, 50, 3, 3, 2, 2, 2, 2, 1, 1, 2, 2), (4, 160, 192, 30, 30, 7, 1, 3, 3, 0, 0, 1, 1, 1, 1),
    (4, 256, 512, 128, 128, 1, 1, 0, 0, 0, 0, 2, 2, 1, 1), (4, 512, 512, 28, 28, 3, 3, 4, 4, 4, 4, 1, 1, 4, 4),
    (4, 1024, 546, 10, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1), (4, 2048, 256, 28, 28, 3, 3, 12, 12, 12, 12, 1, 1, 12, 12),
    (4, 4032, 672, 11, 11, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1)]))
CONTEST = dict(softmax=CONTEST_SOFTMAX, matmul=CONTEST_MATMUL, depthwise=CONTEST_DEPTHWISE, conv2d=CONTEST_CONV2D)
# The few used by the default suite's tests.
SOFTMAX_CASES = {i: CONTEST_SOFTMAX[i] for i in (0, 1, 2, 4)}
MATMUL_CASES = {i: CONTEST_MATMUL[i] for i in (1, 4, 10)}
DEPTHWISE_CASES = {i: CONTEST_DEPTHWISE[i] for i in (4, 5, 7)}
CONV2D_CASES = {i: CONTEST_CONV2D[i] for i in (6, 9)}


def contest_case(kind: str, case: int, rng):
    """(entry, fields, inputs, outputs, reference, tolerance) of one contest case."""
    U = lambda *s, lo=-1.0, hi=1.0: rng.uniform(lo, hi, s).astype(np.float32)   # noqa: E731
    if kind == "softmax":
        N, C, H, W = shape = CONTEST_SOFTMAX[case]
        x = U(*shape, lo=-5, hi=5)
        return ("softmax_contest", dict(N=N, C=C, H=H, W=W), dict(input_addr=x), dict(output_addr=shape),
                lambda: softmax_ref(x), 1e-3)
    if kind == "matmul":
        M, K, N = CONTEST_MATMUL[case]
        a, b = U(M, K), U(K, N)
        return ("matmul_contest", dict(left_rows=M, left_cols=K, right_cols=N), dict(left_addr=a, right_addr=b),
                dict(output_addr=(M, N)), lambda: a.astype(np.float64) @ b, 1e-4)
    names = ["N", "C", "H", "W", "kernel_h", "kernel_w", "pad_top", "pad_bottom", "pad_left", "pad_right",
             "stride_h", "stride_w", "dilation_h", "dilation_w"]
    if kind == "depthwise":
        p = dict(zip(names, CONTEST_DEPTHWISE[case]))
        x, w = U(p["N"], p["C"], p["H"], p["W"]), U(p["C"], p["kernel_h"], p["kernel_w"])
        oc, ref = p["C"], lambda: depthwise_ref(x, w, pads, st, dl)
        inputs = dict(input_addr=x, kernel_addr=w)
    else:
        p = dict(zip(names[:1] + ["IC", "OC"] + names[2:], CONTEST_CONV2D[case]))
        x, w = U(p["N"], p["IC"], p["H"], p["W"]), U(p["OC"], p["IC"], p["kernel_h"], p["kernel_w"])
        oc, ref = p["OC"], lambda: conv2d_ref(x, w, pads, st, dl)
        inputs = dict(input_addr=x, kernel_addr=weights_2ic(w))
    pads = (p["pad_top"], p["pad_bottom"], p["pad_left"], p["pad_right"])
    st, dl = (p["stride_h"], p["stride_w"]), (p["dilation_h"], p["dilation_w"])
    oh, ow = out_hw(p["H"], p["W"], p["kernel_h"], p["kernel_w"], pads, st, dl)
    return (f"{kind}_contest", p, inputs, dict(output_addr=(p["N"], oc, oh, ow)), ref, 1e-4)
