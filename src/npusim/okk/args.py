"""Argument normalisation at the okk API boundary: every C scalar and struct argument becomes a plain
Python value of its C type, or a ConstraintError naming the API, the parameter, the rule and the value.

The C prototypes take ``int``, ``local_addr_t`` (u32), ``system_addr_t`` (u64), ``bool`` and
``const dim4 *``; Python would happily carry None, NaN, floats or bools into numpy. The rules
(docs/okk.md, "Argument rules"):

- an integer parameter takes an ``int`` or numpy integer, never a bool, float (even ``2.0``: C would
  truncate silently, which hides bugs), None or anything else, and must fit its C type;
- a ``bool`` parameter takes a bool, numpy bool or an integer (nonzero is true), like C;
- a ``dim4 *`` takes a ``dim4`` or a 4-tuple/list of such integers (a fresh dim4 is returned: the
  caller's record is never changed); a stride pointer may also be None (NULL).
"""
from __future__ import annotations

import numpy as np

from ..core.args import is_int  # noqa: F401  (re-exported: callers use args.is_int)
from ..core.errors import ConstraintError
from . import spec
from .types import dim4

LOCAL_SPACE = spec.NPU_NUM * spec.LOCAL_MEM_SIZE
INT_MIN, INT_MAX = -2**31, 2**31 - 1
U32_MAX = 2**32 - 1
U64_MAX = 2**64 - 1
WORK_LIMIT = 2**26        # elements one GDMA call may move (after stride-0 dims collapse); docs/okk.md
BDC_WORK_LIMIT = 2**22    # elements one BDC call may compute (after stride-0 dims collapse); docs/okk.md


def c_int(api: str, param: str, v, lo: int = INT_MIN, hi: int = INT_MAX, rule: str | None = None) -> int:
    """An integer argument in [lo, hi]."""
    if not is_int(v) or not lo <= int(v) <= hi:
        raise ConstraintError(api, param, rule or f"an integer in [{lo}, {hi}] (not a bool, float or None)", v)
    return int(v)


def c_bool(api: str, param: str, v) -> bool:
    if isinstance(v, (bool, np.bool_)) or is_int(v):
        return bool(v)
    raise ConstraintError(api, param, "a bool (or an integer: nonzero is true)", v)


def local_addr(api: str, param: str, v) -> int:
    """A local tensor operand: an integer in the 64 NPUs' address space."""
    if type(v) is int and 0 <= v < LOCAL_SPACE:        # the common case, first and cheap
        return v
    if is_int(v) and 0 <= v < LOCAL_SPACE:
        return int(v)
    raise ConstraintError(api, param, f"a local address in [0, {LOCAL_SPACE:#x}) "
                          f"(npu * {spec.LOCAL_MEM_SIZE:#x} + offset)", v)


def u32(api: str, param: str, v) -> int:
    return c_int(api, param, v, 0, U32_MAX, "a local_addr_t: an integer in [0, 2^32)")


def system_addr(api: str, param: str, v) -> int:
    if type(v) is int and 0 <= v <= U64_MAX:
        return v
    return c_int(api, param, v, 0, U64_MAX, "a system_addr_t: an integer in [0, 2^64)")


def dim4_arg(api: str, param: str, d, null_ok: bool = False) -> dim4 | None:
    """A ``const dim4 *``: a dim4 or a 4-tuple/list of C ints -> a dim4 of Python ints (the caller's
    record itself when it already is one: nothing here changes it)."""
    if d is None and null_ok:
        return None
    if type(d) is dim4:
        n, c, h, w = d.n, d.c, d.h, d.w
        if type(n) is int and type(c) is int and type(h) is int and type(w) is int and \
                INT_MIN <= n <= INT_MAX and INT_MIN <= c <= INT_MAX and INT_MIN <= h <= INT_MAX and INT_MIN <= w <= INT_MAX:
            return d                                   # the common case, first and cheap
        fields = (n, c, h, w)
    elif isinstance(d, dim4):
        fields = (d.n, d.c, d.h, d.w)
    elif isinstance(d, (tuple, list)) and len(d) == 4:
        fields = tuple(d)
    else:
        raise ConstraintError(api, param, "a dim4 (or a 4-tuple n, c, h, w)" + (" or None" if null_ok else ""), d)
    for f, v in zip("nchw", fields):
        if not is_int(v) or not INT_MIN <= v <= INT_MAX:
            raise ConstraintError(api, f"{param}->{f}", f"{param}->{f} is a C int (an integer in [-2^31, 2^31), "
                                  "not a bool, float or None)", v)
    return dim4(*(int(v) for v in fields))


def stride_arg(api: str, param: str, d) -> dim4 | None:
    return dim4_arg(api, param, d, null_ok=True)


def out_dim4(api: str, param: str, d) -> dim4 | None:
    """An out-parameter ``dim4 *`` (the stride helpers fill it): None or a dim4 record itself."""
    if d is None or isinstance(d, dim4):
        return d
    raise ConstraintError(api, param, "a dim4 to fill, or None", d)


def work(api: str, elements: int, limit: int = WORK_LIMIT) -> None:
    """Refuse, before computing, a call whose work exceeds the documented limit."""
    if elements > limit:
        raise ConstraintError(api, "shape", f"a call computes at most {limit} elements "
                              "(after stride-0 dimensions collapse; npusim's work limit)", elements)


def collapse(shape: dim4, strides) -> dim4:
    """The shape with every n/h/w dimension whose stride is 0 in all the given strides (none NULL) cut
    to 1: those elements alias one address each and receive the same value, so computing them once is
    the same result and the call's work is O(footprint), not O(shape). C is kept (its channels live in
    different NPUs)."""
    if not strides or any(s is None for s in strides):
        return shape
    keep = [getattr(shape, f) if any(getattr(s, f) for s in strides) else 1 for f in "nhw"]
    if keep == [shape.n, shape.h, shape.w]:
        return shape
    return dim4(keep[0], shape.c, keep[1], keep[2])
