"""The select family: *_select_value (TENSOR_ARITH SG/SE) and greater_select / equal_select (MD_CMP).

Semantics as Sophgo's C-model computes them (differential probes, docs/okk.md, part two):
- ``greater*_select_value``: ``a > b ? select_val : 0`` on DAZ'd fp32 (NaN compares false);
  ``equal*_select_value``: the 32-bit patterns are equal (so -0 != +0, NaN == the same NaN, a
  subnormal != 0). Always one TENSOR_ARITH at 2 cycles per block, strided or not.
- ``greater_select``: ``src0 > src1 ? select0 : select1``, one MD_CMP (2 cycles per block).
- ``equal_select``: two MD_CMP instructions (``src0 > src1``, then ``src1 > src0``); it selects select0
  when neither holds (so NaN and +-0 count as equal). With exactly one constant source the C-model's
  second comparison swaps the operands but not their is-constant flags, so it reads the constant's
  bits as a local address (and asserts when they are misaligned): garbage we cannot reproduce. We
  compute the documented equality there; strict mode raises.
The selected values are copied as raw 32-bit patterns.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..core.errors import ConstraintError
from ..core.options import options
from . import cost, fp32
from .bdc_binary import c_float, elementwise
from .bdc_fp32_unary import _Call
from .fp32 import F32
from .types import union_bits
from .types_part_two import fp32_or_addr_t, x32_or_addr_t

_SEL = (cost.TENSOR_ARITH, cost.ARITH_SIMPLE)
_U = np.uint32


def _val(api, select_val) -> np.ndarray:
    try:
        return np.array([union_bits(select_val, 32)], _U).view(F32)[0]
    except ConstraintError:
        raise ConstraintError(api, "select_val", "an x32 (or raw int bits / fp32 float)", select_val)


def _pick(mask, v):
    return np.where(mask, v, F32(0.0))


def _bits(x):
    return np.ascontiguousarray(x).view(_U)


def okk_bdc_greater_select_value(dst_addr, src0_addr, src1_addr, select_val, shape, dst_stride=None,
                                 src0_stride=None, src1_stride=None):
    """dst = src0 > src1 ? select_val : 0."""
    api = "okk_bdc_greater_select_value"
    v = _val(api, select_val)
    elementwise(api, shape, dst_addr, {"src0_addr": src0_addr, "src1_addr": src1_addr},
                {"dst_addr": dst_stride, "src0_addr": src0_stride, "src1_addr": src1_stride},
                lambda a, b: _pick(fp32.daz(a) > fp32.daz(b), v), _SEL, _SEL)


def okk_bdc_equal_select_value(dst_addr, src0_addr, src1_addr, select_val, shape, dst_stride=None,
                               src0_stride=None, src1_stride=None):
    """dst = bits(src0) == bits(src1) ? select_val : 0."""
    api = "okk_bdc_equal_select_value"
    v = _val(api, select_val)
    elementwise(api, shape, dst_addr, {"src0_addr": src0_addr, "src1_addr": src1_addr},
                {"dst_addr": dst_stride, "src0_addr": src0_stride, "src1_addr": src1_stride},
                lambda a, b: _pick(_bits(a) == _bits(b), v), _SEL, _SEL)


def _c_select(api, cond):
    def f(dst_addr, src_addr, C, select_val, shape, dst_stride=None, src_stride=None):
        k = c_float(api, C)
        raw = np.array([C], F32)
        v = _val(api, select_val)
        elementwise(api, shape, dst_addr, {"src_addr": src_addr},
                    {"dst_addr": dst_stride, "src_addr": src_stride},
                    lambda x: _pick(cond(x, k, raw), v), _SEL, _SEL)
    f.__name__ = f.__qualname__ = api
    return f


okk_bdc_greater_C_select_value = _c_select("okk_bdc_greater_C_select_value",
                                           lambda x, k, raw: fp32.daz(x) > k)
okk_bdc_C_greater_select_value = _c_select("okk_bdc_C_greater_select_value",
                                           lambda x, k, raw: k > fp32.daz(x))
okk_bdc_equal_C_select_value = _c_select("okk_bdc_equal_C_select_value",
                                         lambda x, k, raw: _bits(x) == np.array([k], F32).view(_U)[0])


# ---- greater_select / equal_select with fp32_or_addr_t / x32_or_addr_t operands ----

def _operand(api, name, o, cls):
    if not isinstance(o, cls):
        raise ConstraintError(api, name, f"a {cls.__name__} (is_addr + context)", o)
    return o


def _select(api, dst_addr, src0, src1, select0, select1, shape):
    names = ("src0", "src1", "select0", "select1")
    ops = [_operand(api, n, o, cls) for n, o, cls in
           zip(names, (src0, src1, select0, select1), (fp32_or_addr_t, fp32_or_addr_t, x32_or_addr_t, x32_or_addr_t))]
    c = _Call(api, shape)
    addrs = {"dst_addr": dst_addr}
    addrs.update({f"{n}->context.addr": o.addr for n, o in zip(names, ops) if o.is_addr})
    ts = dict(zip(addrs, c.operands(4, **addrs)))
    dst = ts.pop("dst_addr")
    vals = []
    for n, o in zip(names, ops):
        t = ts.get(f"{n}->context.addr")
        vals.append(t.read() if t is not None else np.array([o.bits], _U).view(F32)[0])
    return c, dst, list(ts.values()), ops, vals


def okk_bdc_greater_select(dst_addr, src0, src1, select0, select1, shape):
    """dst = src0 > src1 ? select0 : select1 (each a tensor address or a constant)."""
    c, dst, ins, ops, (a, b, s0, s1) = _select("okk_bdc_greater_select", dst_addr, src0, src1, select0, select1, shape)
    with np.errstate(all="ignore"):
        dst.write(np.where(fp32.daz(np.asarray(a)) > fp32.daz(np.asarray(b)), s0, s1))
    c.emit(cost.MD_CMP, 2, ins, [dst])


def okk_bdc_equal_select(dst_addr, src0, src1, select0, select1, shape):
    """dst = src0 == src1 ? select0 : select1, including the C-model's mixed-constant behaviour."""
    api = "okk_bdc_equal_select"
    c, dst, ins, ops, (a, b, s0, s1) = _select(api, dst_addr, src0, src1, select0, select1, shape)
    a, b = fp32.daz(np.asarray(a)), fp32.daz(np.asarray(b))
    with np.errstate(all="ignore"):
        if ops[0].is_addr != ops[1].is_addr:
            _quirk(api, "one constant source: the C-model's second comparison reads the constant's bits "
                        "as a local address")
        differ = (a > b) | (b > a)
        dst.write(np.where(differ, s1, s0))
    c.emit(cost.MD_CMP, 2, ins, [dst])
    c.emit(cost.MD_CMP, 2, ins + [dst], [dst])


def _quirk(api: str, what: str) -> None:
    if options().strict:
        raise ConstraintError(api, "src0/src1", "both sources are tensors, or both constants "
                              "(the C-model mis-selects otherwise)", what)


__all__ = [n for n in dir() if n.startswith("okk_")]
