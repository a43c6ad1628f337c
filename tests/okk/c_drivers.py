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
        out += np.einsum("nchw,oc->nohw", win, w[:, :, i, j].astype(np.float64))
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


def run_both(path: str, entry: str, fields: dict, inputs: dict, outputs: dict, defines=None):
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
    cm = run_on_cmodel(path, entry, bytes(pack(kernel.param_type(), full)), writes, reads, defines=defines)
    ref = {n: np.frombuffer(b, np.float32).reshape(outputs[n]) for n, b in zip(outputs, cm.reads)}
    return got, r, ref, cm


# Contest-1 cases (the contest hosts' tables, reference okkernel.md §5) used with the entrants' kernels.
SOFTMAX_CASES = {0: (1, 370, 13, 13), 1: (1, 1000, 1, 1), 2: (4, 2, 157, 283), 4: (6132, 21, 1, 1)}
MATMUL_CASES = {1: (2, 1280, 1000), 4: (32, 2048, 36), 10: (300, 2048, 80)}
DEPTHWISE_CASES = {4: (4, 144, 75, 75, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1), 5: (4, 192, 38, 38, 3, 3, 1, 1, 1, 1, 2, 2, 1, 1),
                   7: (4, 512, 14, 14, 3, 3, 0, 1, 0, 1, 2, 2, 1, 1)}
CONV2D_CASES = {6: (4, 18, 36, 192, 256, 3, 3, 1, 1, 1, 1, 2, 2, 1, 1), 9: (4, 160, 192, 30, 30, 7, 1, 3, 3, 0, 0, 1, 1, 1, 1)}


def contest_case(kind: str, case: int, rng):
    """(entry, fields, inputs, outputs, reference, tolerance) of one contest case."""
    U = lambda *s, lo=-1.0, hi=1.0: rng.uniform(lo, hi, s).astype(np.float32)   # noqa: E731
    if kind == "softmax":
        N, C, H, W = shape = SOFTMAX_CASES[case]
        x = U(*shape, lo=-5, hi=5)
        return ("softmax_contest", dict(N=N, C=C, H=H, W=W), dict(input_addr=x), dict(output_addr=shape),
                lambda: softmax_ref(x), 1e-3)
    if kind == "matmul":
        M, K, N = MATMUL_CASES[case]
        a, b = U(M, K), U(K, N)
        return ("matmul_contest", dict(left_rows=M, left_cols=K, right_cols=N), dict(left_addr=a, right_addr=b),
                dict(output_addr=(M, N)), lambda: a.astype(np.float64) @ b, 1e-4)
    names = ["N", "C", "H", "W", "kernel_h", "kernel_w", "pad_top", "pad_bottom", "pad_left", "pad_right",
             "stride_h", "stride_w", "dilation_h", "dilation_w"]
    if kind == "depthwise":
        p = dict(zip(names, DEPTHWISE_CASES[case]))
        x, w = U(p["N"], p["C"], p["H"], p["W"]), U(p["C"], p["kernel_h"], p["kernel_w"])
        oc, ref = p["C"], lambda: depthwise_ref(x, w, pads, st, dl)
        inputs = dict(input_addr=x, kernel_addr=w)
    else:
        p = dict(zip(names[:1] + ["IC", "OC"] + names[2:], CONV2D_CASES[case]))
        x, w = U(p["N"], p["IC"], p["H"], p["W"]), U(p["OC"], p["IC"], p["kernel_h"], p["kernel_w"])
        oc, ref = p["OC"], lambda: conv2d_ref(x, w, pads, st, dl)
        inputs = dict(input_addr=x, kernel_addr=weights_2ic(w))
    pads = (p["pad_top"], p["pad_bottom"], p["pad_left"], p["pad_right"])
    st, dl = (p["stride_h"], p["stride_w"]), (p["dilation_h"], p["dilation_w"])
    oh, ow = out_hw(p["H"], p["W"], p["kernel_h"], p["kernel_w"], pads, st, dl)
    return (f"{kind}_contest", p, inputs, dict(output_addr=(p["N"], oc, oh, ow)), ref, 1e-4)
