"""okk_bdc_matmul: one FC_FP32 instruction (reference §2.4, §4.7; okkernel_cycles.md §3).

Numerics (reference §4.7, bias/result_add pinned by differential probes): two fp32 accumulators, one
over even k and one over odd k, each a sequential unfused ``acc = fl(acc + fl(l*r))`` in k order; the
result is ``fl(acc_even + acc_odd)``, then ``fl(. + bias)`` with using_bias, then ``fl(old + .)`` with
result_add. Cost: ``M * ceil((q + ceil(N/rcpc))/64) * ceil(rcpc/16) * (K + 6 + 2 bias + 2 result_add)``.
"""
from __future__ import annotations

import numpy as np

from .nan_payload import keep_first_nan
from ..core.errors import ConstraintError
from . import fp32, rules, spec
from .device import BDC, current
from . import native_mac
from .fastsum import plain_paths
from .fp32 import F32
from .matrix import Matrix

FC_FP32 = "FC_FP32"


def fc_cycles(q: int, m: int, k: int, n: int, rcpc: int, bias: bool, radd: bool) -> int:
    return m * (-(-(q + -(-n // rcpc)) // spec.NPU_NUM)) * (-(-rcpc // 16)) * (k + 6 + 2 * bias + 2 * radd)


def _dim(api, name, v, hi):
    if not (isinstance(v, (int, np.integer)) and 1 <= v <= hi):
        raise ConstraintError(api, name, f"{name} is in [1, {hi}]", v)


def _cpc(api, name, cpc, cols, documented_only_above_cols=False):
    if not (isinstance(cpc, (int, np.integer)) and 1 <= cpc <= min(128, cols)):
        if documented_only_above_cols and isinstance(cpc, (int, np.integer)) and \
                min(128, cols) < cpc <= spec.MAX_NHW:
            # the C-model accepts left_cols_per_channel > left_cols, and > 128 (contest sweep: 144 in
            # perfect_1760430's matmul case 5), and computes the right product
            rules.documented_only(api, name, f"{name} is in [1, min(128, cols)]", int(cpc))
            return
        raise ConstraintError(api, name, f"{name} is in [1, min(128, cols)]", cpc)
    if -(-cols // cpc) > spec.MAX_C:
        raise ConstraintError(api, name, "ceil(cols / cols_per_channel) is at most 4095", cpc)


def even_odd_dot(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """fl(acc_even + acc_odd) of the BM1684 FC unit: left (M, K), right (K, N), both DAZ'd fp32. Without
    FTZ passes when no product can be subnormal (fastsum), in native code when also no input is a NaN."""
    fast, native = plain_paths(left, right)
    if native:
        out = np.empty((left.shape[0], right.shape[1]), F32)
        native_mac.even_odd_dot(np.ascontiguousarray(left), np.ascontiguousarray(right), out, 0, left.shape[0])
        return out
    if fast:
        return _even_odd_dot_fast(left, right)
    m, k = left.shape
    n = right.shape[1]
    accs = []
    prod = np.empty((m, n), F32)
    tmp = np.empty((m, n), F32)
    with np.errstate(all="ignore"):
        for par in (0, 1):
            acc = np.zeros((m, n), F32)
            for i in range(par, k, 2):
                np.multiply(left[:, i, None], right[None, i, :], out=prod)
                fp32.ftz_(prod, tmp)
                np.add(acc, prod, out=acc)
                fp32.ftz_(acc, tmp)
            accs.append(acc)
    return fp32.add(accs[0], accs[1])


def _even_odd_dot_fast(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The same sums without FTZ passes (see fastsum), in column blocks that stay in cache."""
    m, k = left.shape
    n = right.shape[1]
    out = np.empty((m, n), F32)
    nb = max(16, (1 << 16) // max(m, 1))
    lt = np.ascontiguousarray(left.T)
    with np.errstate(all="ignore"):
        for c0 in range(0, n, nb):
            r = np.ascontiguousarray(right[:, c0:c0 + nb])
            w = r.shape[1]
            prod = np.empty((m, w), F32)
            accs = []
            for par in (0, 1):
                acc = np.zeros((m, w), F32)
                for i in range(par, k, 2):
                    np.multiply(lt[i][:, None], r[i][None, :], out=prod)
                    np.add(acc, prod, out=acc)
                accs.append(acc)
            np.add(accs[0], accs[1], out=out[:, c0:c0 + nb])
    return out


def okk_bdc_matmul(output_addr, left_addr, right_addr, bias_addr, left_rows, left_cols, right_cols,
                   left_cols_per_channel, right_cols_per_channel, using_bias, result_add) -> None:
    """output (M x N) = left (M x K) @ right (K x N) [+ bias (1 x N)] [+ output]."""
    api = "okk_bdc_matmul"
    dev = current()
    _dim(api, "left_rows", left_rows, spec.MAX_NHW)
    _dim(api, "left_cols", left_cols, spec.MAX_NHW)
    _dim(api, "right_cols", right_cols, spec.MAX_NHW)
    _cpc(api, "left_cols_per_channel", left_cols_per_channel, left_cols, documented_only_above_cols=True)
    _cpc(api, "right_cols_per_channel", right_cols_per_channel, right_cols)
    addrs = {"output_addr": output_addr, "left_addr": left_addr, "right_addr": right_addr}
    if using_bias:
        addrs["bias_addr"] = bias_addr
    for name, a in addrs.items():
        rules.local_addr(api, name, a)
        rules.aligned(api, name, a, 128, f"{name} is divisible by 128")
    rules.same_npu(api, **{k: v for k, v in addrs.items() if k != "left_addr"})
    m, k, n = int(left_rows), int(left_cols), int(right_cols)
    lc, rc = int(left_cols_per_channel), int(right_cols_per_channel)
    L = Matrix(dev.local, api, "left_addr", left_addr, m, k, lc)
    R = Matrix(dev.local, api, "right_addr", right_addr, k, n, rc)
    O = Matrix(dev.local, api, "output_addr", output_addr, m, n, rc)
    # The FC unit computes whole channels: the padding columns of the last output channel come from
    # the right matrix's padding columns (raw bytes), as in the C-model.
    reads = L.footprints + R.all_footprints
    res = even_odd_dot(fp32.daz(L.read()), fp32.daz(R.read_padded()))
    if using_bias:
        B = Matrix(dev.local, api, "bias_addr", bias_addr, 1, n, rc)
        bias = fp32.daz(B.read_padded())
        res = keep_first_nan(fp32.add(res, bias), res, bias)
        reads += B.all_footprints
    if result_add:
        old = fp32.daz(O.read_padded())
        res = keep_first_nan(fp32.add(res, old), res, old)     # new + old: its NaN wins a pair
        reads += O.all_footprints
    O.write(res)
    q = int(output_addr) // spec.LOCAL_MEM_SIZE
    dev.issue(BDC, api, FC_FP32, fc_cycles(q, m, k, n, rc, bool(using_bias), bool(result_add)),
              reads=reads, writes=O.all_footprints, elements=m * n * k)


__all__ = ["okk_bdc_matmul"]
