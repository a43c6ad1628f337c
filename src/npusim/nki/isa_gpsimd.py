"""GpSimd: ``nisa.iota`` and ``nisa.affine_select`` (causal masks).

Both evaluate the affine expression ``offset + p * channel_multiplier + sum_k step_k * i_k`` over the
partition index p and a pattern ``[[step, num], ...]`` (up to 4 free dims, padded with size-1 dims) in
int32 arithmetic (two's-complement wrap-around). Both run on GpSimd, which cannot touch PSUM: dst and
on_true_tile live in SBUF. Cost GPSIMD_START + N = 150 + N cycles (reference nki.md §2.5, §4.1).
"""
from __future__ import annotations

import numpy as np

from ..core.dtypes import cast
from . import cost_two as _cost2
from . import args as _args
from . import rules as R
from .alu import OPS
from .isa import _op, store_result as _store
from .runtime import NkiInstruction, current
from .tensor import NkiTensor

NkiValidationError = R.NkiValidationError

MAX_PATTERN_DIMS = 4
COMPARISONS = ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal")


def _pattern(api, pattern) -> list[tuple[int, int]]:
    try:
        pairs = [tuple(p) for p in pattern]
    except TypeError:
        raise NkiValidationError(api, "pattern", "a list of [step, num] pairs", pattern) from None
    if any(len(p) != 2 or not all(_args.is_int(x) for x in p) for p in pairs):
        raise NkiValidationError(api, "pattern", "a list of [step, num] pairs of ints", pattern)
    pat = [(int(s), int(n)) for s, n in pairs]
    if any(not -2 ** 31 <= s < 2 ** 31 or n > 65535 for s, n in pat):
        raise NkiValidationError(api, "pattern", "int32 steps and uint16 nums", pattern)
    if not 1 <= len(pat) <= MAX_PATTERN_DIMS:
        raise NkiValidationError(api, "pattern", f"1 to {MAX_PATTERN_DIMS} [step, num] pairs", pattern)
    if any(n < 1 for _, n in pat):
        raise NkiValidationError(api, "pattern", "every num is positive", pattern)
    return pat


def affine_values(partitions: int, pat, offset: int, channel_multiplier: int) -> np.ndarray:
    """int32 [P, prod(num)]: offset + p*cm + sum step_k * i_k, wrapping like the engine's int32 math."""
    v = np.full((1,), int(offset), np.int64)
    for step, num in pat:
        v = (v[:, None] + step * np.arange(num, dtype=np.int64)[None, :]).reshape(-1)
    v = v[None, :] + int(channel_multiplier) * np.arange(partitions, dtype=np.int64)[:, None]
    return v.astype(np.uint64).astype(np.uint32).view(np.int32)    # wrap to 32 bits


_sbuf = R.gpsimd_tile      # (the GpSimd-only operand rule, rules.py)


def _int(api, param, v) -> int:
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
        raise NkiValidationError(api, param, "an integer (the affine expression is int32 math)", v)
    if not -2 ** 31 <= int(v) < 2 ** 31:
        raise NkiValidationError(api, param, "an int32 value (the affine expression is int32 math)", v)
    return int(v)


def iota(dst, pattern, offset=0, channel_multiplier=0, name=None) -> NkiInstruction:
    """``dst[p, i...] = offset + p * channel_multiplier + sum step_k * i_k`` (int32), cast to dst's dtype."""
    api = "nisa.iota"
    run = current(api)
    _sbuf(api, "dst", dst)
    pat = _pattern(api, pattern)
    off, cm = _int(api, "offset", offset), _int(api, "channel_multiplier", channel_multiplier)
    n = int(np.prod([num for _, num in pat]))
    if dst.free_size != n:
        raise NkiValidationError(api, "dst", f"dst holds the pattern's {n} elements per partition", dst.shape)
    v = affine_values(dst.partitions, pat, off, cm)
    if dst.tv.dtype.name == "int32":
        dst.write(v.reshape(dst.shape))
    elif dst.tv.dtype.is_float:
        _store(dst, v.astype(np.float32).reshape(dst.shape))        # int32 -> fp32 (RNE) -> dst
    else:
        dst.write(cast(v.astype(np.float64), dst.tv.dtype).reshape(dst.shape))
    return run.issue(api, "gpsimd", _cost2.gpsimd(dst.free_size), writes=[dst], elements=dst.size)


_AS_ORDER_REF = ("channel_multiplier", "on_true_tile", "on_false_value", "cmp_op", "offset")
_AS_ORDER_NEW = ("offset", "channel_multiplier", "on_true_tile", "on_false_value", "cmp_op")


def affine_select(dst, pattern, *args, name=None, **kwargs) -> NkiInstruction:
    """``dst = on_true_tile where cmp_op(affine_value, 0) else on_false_value`` (a float32 scalar).
    A causal mask keeps key j <= query p: pattern [[-1, N]], channel_multiplier 1, cmp_op greater_equal.

    Signature of reference §2.5: ``(dst, pattern, channel_multiplier, on_true_tile, on_false_value,
    cmp_op=nl.equal, offset=0)``; the newest docs put ``offset`` third: ``(dst, pattern, offset,
    channel_multiplier, on_true_tile, on_false_value, cmp_op=nl.equal)``. Positional calls in either
    order are told apart by where the on_true tile sits; keywords work with both."""
    api = "nisa.affine_select"
    run = current(api)
    order = _AS_ORDER_NEW if len(args) >= 3 and isinstance(args[2], NkiTensor) else _AS_ORDER_REF
    if len(args) > len(order):
        raise NkiValidationError(api, "args", f"at most {len(order) + 2} positional arguments", len(args) + 2)
    vals = dict(zip(order, args))
    for k, v in kwargs.items():
        if k not in order:
            raise NkiValidationError(api, k, "a parameter of affine_select", k)
        if k in vals:
            raise NkiValidationError(api, k, "each argument given once", k)
        vals[k] = v
    for k in ("channel_multiplier", "on_true_tile", "on_false_value"):
        if k not in vals:
            raise NkiValidationError(api, k, "a required argument", None)
    channel_multiplier, on_true_tile = vals["channel_multiplier"], vals["on_true_tile"]
    on_false_value = vals["on_false_value"]
    cmp_op, offset = vals.get("cmp_op", OPS["equal"]), vals.get("offset", 0)
    _sbuf(api, "dst", dst)
    _sbuf(api, "on_true_tile", on_true_tile)
    R.same_partitions(api, ["dst", "on_true_tile"], [dst, on_true_tile])
    R.same_free_size(api, ["on_true_tile", "dst"], [on_true_tile, dst])
    pat = _pattern(api, pattern)
    off, cm = _int(api, "offset", offset), _int(api, "channel_multiplier", channel_multiplier)
    n = int(np.prod([num for _, num in pat]))
    if dst.free_size != n:
        raise NkiValidationError(api, "pattern", f"the pattern covers dst's {dst.free_size} elements per "
                                 "partition", n)
    c = _op(api, "cmp_op", cmp_op, run.chip)
    if c.name not in COMPARISONS:
        raise NkiValidationError(api, "cmp_op", "a comparison operator (nl.equal, nl.greater_equal ...)", c.name)
    if not R.is_scalar(on_false_value):
        raise NkiValidationError(api, "on_false_value", "a float32 scalar", type(on_false_value).__name__)
    v = affine_values(dst.partitions, pat, off, cm)
    keep = c.fn(v, np.int32(0)) != 0
    x = on_true_tile.read(api).reshape(keep.shape)
    if on_true_tile.tv.dtype == dst.tv.dtype:
        fill = cast(np.array([on_false_value], np.float32), dst.tv.dtype)[0]
        r = np.where(keep, x, fill)
        dst.write(r.reshape(dst.shape))
    else:
        r = np.where(keep, x.astype(np.float32), np.float32(on_false_value))
        _store(dst, r.astype(np.float32).reshape(dst.shape))
    return run.issue(api, "gpsimd", _cost2.gpsimd(dst.free_size), reads=[on_true_tile], writes=[dst],
                     elements=dst.size, args={"cmp_op": c.name})


__all__ = ["iota", "affine_select"]
