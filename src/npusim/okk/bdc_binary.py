"""FP32 binary BDC functions: add, sub, mul, div, max, min, mac, their _C / C_ forms, and relu.

Numerics (reference okkernel.md §4, and differential probes on Sophgo's C-model, docs/okk.md, part two):
IEEE binary32 round-to-nearest-even with DAZ inputs and FTZ results; mac is unfused (dst + fl(a*b));
div is the C-model's div_fnc (rsqrt with three Newton steps). max (MD_CMP) returns the DAZ'd
``a > b ? a : b`` (so ties and NaNs pick b); min (TENSOR_ARITH) returns the raw ``a <= b ? a : b``.

Cost (okkernel_cycles.md §3): with every stride pointer NULL and every address divisible by 128 the
call is one MD_SCALAR (MD_CMP for max/relu) at 1 cycle per block; otherwise it is one TENSOR_ARITH at 2
(mac 5); min is always TENSOR_ARITH x2; div is x30 either way.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from . import cost, fp32
from .args import is_int
from .bdc_fp32_unary import _Call
from .fastsum import daz_op
from .fp32 import F32
from .nan_payload import div_nan

MD_CMP = cost.MD_CMP


def c_float(api: str, C) -> np.float32:
    """A ``float C`` argument, as the C call would convert it (fp32), read DAZ like any operand."""
    if not isinstance(C, (int, float, np.integer, np.floating)) or isinstance(C, bool):
        raise ConstraintError(api, "C", "a float", C)
    with np.errstate(all="ignore"):
        c = np.array([C], F32)
    return fp32.daz(c)[0]


def elementwise(api, shape, dst, srcs: dict, strides: dict, compute, plain: tuple, strided: tuple,
                reads_dst: bool = False, align: int = 4) -> None:
    """One strided elementwise BDC call: check, compute on whole arrays, write dst, one event.
    ``plain`` / ``strided`` are (instruction, factor) for all-NULL / any-non-NULL stride pointers."""
    c = _Call(api, shape)
    addrs = {"dst_addr": dst, **srcs}
    ts = c.operands(align, strides=strides, **addrs)
    out, ins = ts[0], ts[1:]
    vals = [t.read() for t in ins]
    if reads_dst:
        vals.append(out.read())
    with np.errstate(all="ignore"):
        out.write(compute(*vals))
    instr, factor = plain if is_plain(strides, addrs) else strided
    c.emit(instr, factor, ins + ([out] if reads_dst else []), [out])


def is_plain(strides: dict, addrs: dict) -> bool:
    """The C-model emits the cheap MD_* form only for the 128-byte aligned layout: every stride pointer
    NULL and every address divisible by 128 (part one's finding, checked on libbackend); anything else
    is a TENSOR_ARITH instruction."""
    return all(s is None for s in strides.values()) and all(is_int(a) and a % 128 == 0 for a in addrs.values())


_D = fp32.daz
_SIMPLE = (cost.MD_SCALAR, cost.SCALAR_SIMPLE)
_ARITH = (cost.TENSOR_ARITH, cost.ARITH_SIMPLE)
_DIV = (cost.MD_SCALAR, cost.SCALAR_DIV)
_ARITH_DIV = (cost.TENSOR_ARITH, cost.ARITH_DIV)
_MAC = (cost.TENSOR_ARITH, cost.ARITH_MAC)
_CMP = (MD_CMP, 1)


def _max(a, b):
    a, b = _D(a), _D(b)
    return np.where(a > b, a, b)


def _min(a, b):
    return np.where(_D(a) <= _D(b), a, b)


def _binary(api, op, plain, strided):
    def f(dst_addr, src0_addr, src1_addr, shape, dst_stride=None, src0_stride=None, src1_stride=None):
        elementwise(api, shape, dst_addr, {"src0_addr": src0_addr, "src1_addr": src1_addr},
                    {"dst_addr": dst_stride, "src0_addr": src0_stride, "src1_addr": src1_stride},
                    op, plain, strided)
    f.__name__ = f.__qualname__ = api
    return f


def _with_c(api, op, plain, strided):
    """``op(x, C)``; C_ forms pass a swapped op."""
    def f(dst_addr, src_addr, C, shape, dst_stride=None, src_stride=None):
        k = c_float(api, C)
        elementwise(api, shape, dst_addr, {"src_addr": src_addr},
                    {"dst_addr": dst_stride, "src_addr": src_stride}, lambda x: op(x, k), plain, strided)
    f.__name__ = f.__qualname__ = api
    return f


okk_bdc_add = _binary("okk_bdc_add", lambda a, b: daz_op(np.add, a, b, first_nan=True), _SIMPLE, _ARITH)
okk_bdc_sub = _binary("okk_bdc_sub", lambda a, b: daz_op(np.subtract, a, b, first_nan=True), _SIMPLE, _ARITH)
okk_bdc_mul = _binary("okk_bdc_mul", lambda a, b: daz_op(np.multiply, a, b, first_nan=True), _SIMPLE, _ARITH)
okk_bdc_div = _binary("okk_bdc_div", lambda a, b: div_nan(fp32.div_fnc(a, b), a, b), _DIV, _ARITH_DIV)
okk_bdc_max = _binary("okk_bdc_max", _max, _CMP, _ARITH)
okk_bdc_min = _binary("okk_bdc_min", _min, _ARITH, _ARITH)

# Finding 3: the C-model keeps the tensor operand's NaN of a NaN pair (x86 first-operand rule); numpy
# may swap operands (commutative ops, scalar operands), so every add/sub/mul form and mac pin it.
okk_bdc_add_C = _with_c("okk_bdc_add_C", lambda x, k: daz_op(np.add, x, k, first_nan=True), _SIMPLE, _ARITH)
okk_bdc_sub_C = _with_c("okk_bdc_sub_C", lambda x, k: daz_op(np.subtract, x, k, first_nan=True), _SIMPLE, _ARITH)
okk_bdc_C_sub = _with_c("okk_bdc_C_sub", lambda x, k: daz_op(np.subtract, k, x, first_nan=True), _SIMPLE, _ARITH)
okk_bdc_mul_C = _with_c("okk_bdc_mul_C", lambda x, k: daz_op(np.multiply, x, k, first_nan=True), _SIMPLE, _ARITH)
okk_bdc_div_C = _with_c("okk_bdc_div_C", lambda x, k: div_nan(fp32.div_fnc(x, np.full(x.shape, k, F32)), x, k),
                        _DIV, _ARITH_DIV)
okk_bdc_C_div = _with_c("okk_bdc_C_div", lambda x, k: div_nan(fp32.div_fnc(np.full(x.shape, k, F32), x), k, x),
                        _DIV, _ARITH_DIV)
okk_bdc_max_C = _with_c("okk_bdc_max_C", lambda x, k: _max(x, np.full(x.shape, k, F32)), _CMP, _ARITH)
okk_bdc_min_C = _with_c("okk_bdc_min_C", lambda x, k: _min(x, np.full(x.shape, k, F32)), _ARITH, _ARITH)


def _mac(p, d):
    """fl(p + dst) with the product's NaN kept for a NaN pair."""
    return daz_op(np.add, p, d, first_nan=True)


def okk_bdc_mac(dst_addr, src0_addr, src1_addr, shape, dst_stride=None, src0_stride=None, src1_stride=None):
    """dst = dst + src0 * src1, unfused: fl(fl(a*b) + dst), the product first (its NaN wins a pair)."""
    elementwise("okk_bdc_mac", shape, dst_addr, {"src0_addr": src0_addr, "src1_addr": src1_addr},
                {"dst_addr": dst_stride, "src0_addr": src0_stride, "src1_addr": src1_stride},
                lambda a, b, d: _mac(daz_op(np.multiply, a, b, first_nan=True), d), _SIMPLE, _MAC, reads_dst=True)


def okk_bdc_mac_C(dst_addr, src_addr, C, shape, dst_stride=None, src_stride=None):
    """dst = dst + src * C, unfused, the product first (as okk_bdc_mac)."""
    k = c_float("okk_bdc_mac_C", C)
    elementwise("okk_bdc_mac_C", shape, dst_addr, {"src_addr": src_addr},
                {"dst_addr": dst_stride, "src_addr": src_stride},
                lambda a, d: _mac(daz_op(np.multiply, a, k, first_nan=True), d), _SIMPLE, _MAC, reads_dst=True)


def okk_bdc_relu(dst_addr, src_addr, shape, dst_stride=None, src_stride=None):
    """dst = max(src, 0): NaN, -0 and subnormals give +0 (MD_CMP x1; TENSOR_ARITH x2 when strided)."""
    elementwise("okk_bdc_relu", shape, dst_addr, {"src_addr": src_addr},
                {"dst_addr": dst_stride, "src_addr": src_stride},
                lambda x: _max(x, np.zeros(x.shape, F32)), _CMP, _ARITH)

__all__ = [n for n in dir() if n.startswith("okk_")]
