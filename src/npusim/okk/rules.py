"""The seeds' remarks, as checks shared by every okk_* function. Each raises ConstraintError naming the
API, the parameter, the rule as the seed words it, and the value."""
from __future__ import annotations

import warnings

import numpy as np

from ..core.errors import ConstraintError
from ..core.options import options
from . import args, spec
from .types import dim4

LOCAL_SPACE = spec.NPU_NUM * spec.LOCAL_MEM_SIZE


def shape_bdc(api: str, shape: dim4, check_work: bool = True, c_documented_only: bool = False) -> None:
    """n, h, w in [1, 65535]; c in [1, 4095] (every BDC seed function); then npusim's work limit
    (the caller checks it itself, after collapsing stride-0 dimensions, when ``check_work`` is False).
    ``c_documented_only``: c > 4095 is only a documented rule (the C-model computes the pools right)."""
    for name in ("n", "h", "w"):
        v = getattr(shape, name)
        if not (isinstance(v, (int, np.integer)) and 1 <= v <= spec.MAX_NHW):
            raise ConstraintError(api, f"shape->{name}", "shape->n, shape->h and shape->w are in [1, 65535]", v)
    if not (isinstance(shape.c, (int, np.integer)) and 1 <= shape.c <= spec.MAX_C):
        if c_documented_only and isinstance(shape.c, (int, np.integer)) and shape.c > spec.MAX_C:
            documented_only(api, "shape->c", "shape->c is in [1, 4095]", int(shape.c))
        else:
            raise ConstraintError(api, "shape->c", "shape->c is in [1, 4095]", shape.c)
    if check_work:
        args.work(api, int(shape.n) * int(shape.c) * int(shape.h) * int(shape.w), args.BDC_WORK_LIMIT)


def shape_gdma(api: str, shape: dim4) -> None:
    """GDMA documents no shape limit; sizes must be positive, and the C-model exits on W > 65535
    (okkernel_cycles.md §7)."""
    n, c, h, w = shape.n, shape.c, shape.h, shape.w
    if type(n) is int and type(c) is int and type(h) is int and type(w) is int and \
            n >= 1 and c >= 1 and h >= 1 and 1 <= w <= spec.MAX_NHW:
        return                  # the common case (plain ints, every check passes), without the loop
    for name in ("n", "c", "h", "w"):
        v = getattr(shape, name)
        if not (isinstance(v, (int, np.integer)) and v >= 1):
            raise ConstraintError(api, f"shape->{name}", "shape sizes are positive", v)
    if shape.w > spec.MAX_NHW:
        raise ConstraintError(api, "shape->w", "shape->w is at most 65535 (C-model assertion)", shape.w)


def local_addr(api: str, param: str, addr) -> None:
    """An integer in [0, 64 x 0x80000) (args.local_addr)."""
    args.local_addr(api, param, addr)


def aligned(api: str, param: str, addr: int, align: int, why: str | None = None) -> None:
    if addr % align:
        raise ConstraintError(api, param, why or f"{param} is divisible by {align}", hex(addr))


def same_npu(api: str, **addrs) -> None:
    """The operands start at the same NPU (addr >> 19 equal)."""
    items = [(name, args.local_addr(api, name, a)) for name, a in addrs.items()]
    q0 = items[0][1] // spec.LOCAL_MEM_SIZE
    for name, a in items[1:]:
        if a // spec.LOCAL_MEM_SIZE != q0:
            raise ConstraintError(api, name, "the tensors start at the same NPU",
                                  f"{name} starts at NPU {a // spec.LOCAL_MEM_SIZE}, "
                                  f"{items[0][0]} at NPU {q0}")


def work_distinct(api: str, work: int, dst: int, src: int) -> None:
    if work == dst:
        raise ConstraintError(api, "work_addr", "dst_addr = work_addr is not allowed", hex(work))
    if work == src:
        raise ConstraintError(api, "work_addr", "src_addr = work_addr is not allowed", hex(work))


def num_series(api: str, n) -> None:
    if not (isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)) and 1 <= n <= spec.MAX_NUM_SERIES):
        raise ConstraintError(api, "num_series", "num_series is in [1, 64]", n)


def stride_w_one(api: str, param: str, stride: dim4 | None) -> None:
    if stride is not None and stride.w != 1:
        raise ConstraintError(api, f"{param}->w", f"{param}->w is only allowed to be one", stride.w)


def data_range(api: str, param: str, values: np.ndarray, lo: float, hi: float, rule: str) -> None:
    """A data-range remark: not an error on hardware (it computes something); strict mode reports it."""
    if not options().strict or values.size == 0:
        return
    bad = ~((values >= lo) & (values <= hi))
    if bad.any():
        raise ConstraintError(api, param, rule, values[bad].flat[0].item())


class DocumentedRuleWarning(UserWarning):
    """A rule the docs state but Sophgo's C-model does not enforce (and computes correctly without)."""


def documented_only(api: str, param: str, rule: str, value) -> None:
    """A documented rule the C-model accepts: a warning, ``ConstraintError`` in strict mode."""
    if options().strict:
        raise ConstraintError(api, param, rule, value)
    warnings.warn(DocumentedRuleWarning(f"{api}: parameter '{param}' breaks the documented rule \"{rule}\" "
                                        f"(got {value!r}); Sophgo's C-model accepts it"), stacklevel=3)
