"""Legacy assignment forms: ``t[k] = v`` (``assign``), ``t[k] op= v`` (``update``, including
``psum += matmul`` accumulation) and ``dst[...] = nl.loop_reduce(...)``."""
from __future__ import annotations

import weakref

import numpy as np

from ...core.errors import ConstraintError, UnsupportedError
from .. import isa as _isa
from .. import rules as R
from ..alu import OPS, lookup
from ..runtime import current
from ..tensor import NkiTensor
from . import index as _index


class LoopReduce:
    """What ``nl.loop_reduce(x, op, loop_indices)`` returns: assigned into ``dst`` it accumulates
    ``dst = op(dst, x)`` across the iterations of the named loops (``assign``)."""
    __slots__ = ("x", "op", "first", "dtype")

    def __init__(self, x, op, first, dtype):
        self.x, self.op, self.first, self.dtype = x, op, first, dtype


def loop_reduce(x, op, loop_indices, dtype=None, mask=None, **kwargs):
    """``dst[...] = nl.loop_reduce(x, op=np.add, loop_indices=[k])``: dst accumulates ``op`` over the loop
    iterations. npusim's reading: the iteration where every named loop index is 0 initializes dst (a copy
    of x), every later one updates it in place (``tensor_tensor(dst, dst, x, op)``)."""
    api = "nl.loop_reduce"
    a = lookup(op)
    if a is None:
        raise ConstraintError(api, "op", "an ALU operator (np.add, nl.maximum ...)", op)
    try:
        first = all(int(i) == 0 for i in loop_indices)
    except (TypeError, ValueError, OverflowError):
        raise ConstraintError(api, "loop_indices", "a list of the loops' index values", loop_indices) from None
    if mask is not None and not isinstance(x, NkiTensor):      # (the mask's shape check needs x's shape)
        raise ConstraintError(api, "x", "a tile (a mask applies to a tile)", x)
    if mask is not None and _index.mask_array(api, mask, x.shape) is not None:
        raise UnsupportedError(api, "a partial mask", "loop_reduce accumulates whole tiles")
    return LoopReduce(x, OPS[a.name], first, dtype)


def assign(dst, value) -> None:
    """``t[key] = value``: copy a tile into the view (VectorE ``tensor_copy``, casting to dst's dtype) or
    fill it with a scalar (``memset``). Assigning a view to itself (``t[i] += x``) does nothing."""
    if type(value) is LoopReduce:
        if value.first:
            _isa.tensor_copy(dst, value.x)
        else:
            _isa.tensor_tensor(dst, dst, value.x, value.op)
        return
    if isinstance(value, NkiTensor):
        a, b = value.tv, dst.tv
        if a.memory is b.memory and a.offset == b.offset and a.shape == b.shape and a.strides == b.strides \
                and a.dtype == b.dtype:
            return
        _isa.tensor_copy(dst, value)
    else:
        _isa.memset(dst, value)


#: legacy matmul results (nl.matmul / nisa.nc_matmul) not yet accumulated anywhere (``psum += matmul``)
MATMUL_RESULTS = weakref.WeakSet()


def _psum_accumulate(dst, other) -> None:
    """``psum_tile += nl.matmul(...)``: the legacy compiler makes the matmul accumulate into dst's PSUM
    bank. The matmul ran (and was charged) into its own PSUM tile; here its fp32 result is added into
    dst and a zero-cycle TensorE event orders dst after it (the accumulation is part of the matmul)."""
    api = "nisa.nc_matmul"
    root = other.root or other
    if root not in MATMUL_RESULTS:
        raise ConstraintError("nl.add", "y", "psum += x takes a matmul result (nl.matmul / nisa.nc_matmul): "
                              "otherwise both inputs would be in PSUM", "a PSUM tile")
    if other.shape != dst.shape:
        raise ConstraintError(api, "dst", "the accumulated matmul result has dst's shape", (dst.shape, other.shape))
    run = current(api)
    R.tile(api, "dst", dst)          # the tile rules, and a dead (evicted) accumulator raises here
    R.tile(api, "moving result", other)
    acc = dst.read(api).astype(np.float32) + other.read(api).astype(np.float32)
    dst.write(acc.astype(dst.tv.dtype.np))
    run.issue(api, "tensor", 0, reads=[other], writes=[dst], args={"accumulate": True})


def update(dst, name, other) -> None:
    """``dst op= other`` in place (``tensor_tensor`` / ``tensor_scalar`` into dst); ``psum += matmul``
    accumulates in PSUM."""
    op = OPS[name]
    if name == "add" and dst.in_psum and isinstance(other, NkiTensor) and other.in_psum:
        _psum_accumulate(dst, other)
        return
    if isinstance(other, NkiTensor):
        if other.shape != dst.shape and other.free_size == 1:
            _isa.tensor_scalar(dst, dst, op, other)
        else:
            _isa.tensor_tensor(dst, dst, other, op)
    else:
        _isa.tensor_scalar(dst, dst, op, other)
