"""What the advanced ("高阶") APIs share: operand checks, the temporary buffer, and the step model.

An advanced API is, on the device, a fixed sequence of basic vector instructions over a temporary buffer
(asc-devkit impl/adv_api/detail/...). npusim replays that sequence on numpy arrays with each step's own
rounding (the basic APIs' compute functions, vector_unary.SPECS / vector_binary.SPECS, and core.cast), adds
up each step's cycles as the basic API would cost it (count form over the chunk), and records one event.

Temporary space: ``sharedTmpBuffer`` (a uint8_t LocalTensor) must hold at least the vendor's minimum
(``GetXxxMaxMinTmpSize``'s minValue, from impl/adv_api/tiling/*); without it the framework pops the UB that
TPipe has not allocated (PopStackBuffer), which must hold the same minimum.
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import RoundMode as CoreRound, cast
from ..core.errors import ConstraintError
from ..core.view import TensorView
from . import cost
from . import dtypes as T
from .dtypes import asc_name
from .rules import check_vector_tensor
from .tensor import LocalTensor
from .vector_binary import SPECS as BINARY
from .vector_unary import SPECS as UNARY


def check_tensors(api: str, ctx, types, **tensors) -> None:
    for name, t in tensors.items():
        check_vector_tensor(api, name, t)
    first = next(iter(tensors.values()))
    if first.dtype not in types:
        raise ConstraintError(api, "T", f"one of {', '.join(asc_name(d) for d in types)} on {ctx.soc.name}",
                              asc_name(first.dtype))


def check_template_t(api: str, T_, t) -> None:
    if T_ is not None and T.as_dtype(T_) is not t.dtype:
        raise ConstraintError(api, "T", f"the tensors' element type ({asc_name(t.dtype)})", asc_name(T.as_dtype(T_)))


def count_of(api: str, n, *tensors) -> int:
    """calCount (default: the first tensor's size) within every tensor."""
    from .args import as_int
    n = tensors[0].size if n is None else as_int(api, "calCount", n)
    if n < 0:
        raise ConstraintError(api, "calCount", "calCount >= 0", n)
    for t in tensors:
        if n > t.size:
            raise ConstraintError(api, "calCount", f"calCount <= the tensors' sizes ({t.size} elements)", n)
    return n


def split_args(args):
    """(sharedTmpBuffer or None, the remaining arguments): the tmp buffer is the uint8_t LocalTensor."""
    if args and isinstance(args[0], LocalTensor):
        return args[0], args[1:]
    return None, args


def tmp_footprint(api: str, ctx, tmp, need: int, *operands):
    """The temporary space's footprint; ConstraintError when it is below the vendor's minimum."""
    if tmp is None:
        free = ctx.soc.ub_bytes - ctx.ub_used
        if free < need:
            raise ConstraintError(api, "sharedTmpBuffer", f"without a sharedTmpBuffer the framework takes the UB "
                                  f"TPipe left free, at least {need} bytes (GetXxxMaxMinTmpSize minValue)", free)
        return TensorView(ctx.ub, ctx.ub_used, (free,), None, T.uint8_t, api=api).footprint
    check_vector_tensor(api, "sharedTmpBuffer", tmp)
    if tmp.dtype is not T.uint8_t:
        raise ConstraintError(api, "sharedTmpBuffer", "a LocalTensor<uint8_t>", asc_name(tmp.dtype))
    if tmp.size < need:
        raise ConstraintError(api, "sharedTmpBuffer", f"at least {need} bytes (GetXxxMaxMinTmpSize minValue)",
                              tmp.size)
    lo, hi = tmp.addr, tmp.addr + tmp.size
    for o in operands:
        if o.addr < hi and lo < o.addr + o.size * o.dtype.itemsize:
            raise ConstraintError(api, "sharedTmpBuffer", "sharedTmpBuffer does not overlap the operands", tmp)
    return TensorView(ctx.ub, tmp.addr, (tmp.size,), None, T.uint8_t, api=api).footprint


def no_overlap(api: str, a, b, what: str) -> None:
    if a.addr < b.addr + b.size * b.dtype.itemsize and b.addr < a.addr + a.size * a.dtype.itemsize:
        raise ConstraintError(api, what, "source and destination do not overlap", (a, b))


class Steps:
    """The basic instructions an advanced API is made of, applied to numpy arrays of ``n`` elements."""

    def __init__(self, ctx, n: int):
        self.ctx, self.n, self.cycles, self.count = ctx, n, 0, 0

    def _cost(self, kind: str, d) -> None:
        r = max(1, -(-self.n * d.itemsize // 256))
        self.cycles += cost.vector_cycles(kind, r, d.name)
        self.count += 1

    def u(self, name: str, a, d, scalar=None):
        spec = UNARY[name]
        self._cost(spec.kind, d)
        return spec.fn(self.ctx, d, scalar)(a)

    def b(self, name: str, a, b, d):
        spec = BINARY[name]
        self._cost(spec.kind, d)
        return spec.fn(self.ctx, d, d)(a, b)

    def dup(self, value, d):
        self._cost("one", d)
        return np.full(self.n, value, d.np)

    def cast(self, a, d, mode: CoreRound = CoreRound.RINT):
        self._cost("one", d)
        if a.dtype == d.np and not d.is_int:       # float -> same float: round to an integral value
            return {CoreRound.FLOOR: np.floor, CoreRound.CEIL: np.ceil, CoreRound.TRUNC: np.trunc,
                    CoreRound.RINT: np.rint}[mode](a).astype(d.np)
        return cast(a, d, round=mode, saturate=True, overflow=self.ctx.float_overflow)


def read(api: str, t, n: int) -> tuple:
    v = TensorView(t.ctx.ub, t.addr, (n,), None, t.dtype, api=api)
    return v.read(api).copy(), v


def write(api: str, t, values) -> TensorView:
    v = TensorView(t.ctx.ub, t.addr, (values.size,), None, t.dtype, api=api)
    v.write(values.astype(t.dtype.np, copy=False))
    return v


def ub_view(t, shape, strides, api: str) -> TensorView:
    """A view of LocalTensor ``t`` with a shape and byte strides of the caller's choosing."""
    return TensorView(t.ctx.ub, t.addr, tuple(shape), None if strides is None else tuple(strides), t.dtype, api=api)
