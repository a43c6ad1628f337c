"""The part-two ``nki.language`` functions (re-exported into nl by one line at the end of language.py):
matmul and transpose."""
from __future__ import annotations

from ..core.errors import ConstraintError
from . import isa as _isa
from .runtime import current
from .tensor import MemoryRegion, NkiTensor


def _tile(api, param, x) -> NkiTensor:
    if not isinstance(x, NkiTensor) or not x.on_chip:
        raise ConstraintError(api, param, "an SBUF or PSUM tile", type(x).__name__)
    return x


def _alloc(shape, dtype, buffer, api):
    return current(api).allocate(shape, dtype, buffer, "", api)


def _in_sbuf(x: NkiTensor, api: str) -> NkiTensor:
    if x.buffer is MemoryRegion.sbuf:
        return x
    t = _alloc(x.shape, x.dtype, MemoryRegion.sbuf, api)
    _isa.tensor_copy(t, x)
    return t


def transpose(x, dtype=None) -> NkiTensor:
    """``nl.transpose(x)``: a 2-D tile with partition and free dims swapped, in SBUF. Blocks up to
    32x32 go through VectorE directly; larger ones through TensorE (PSUM) and a copy back."""
    api = "nl.transpose"
    _tile(api, "x", x)
    p, f = x.partitions, x.free_size
    if max(p, f) <= _isa.VECTOR_TRANSPOSE_MAX:
        out = _alloc((f, p), x.dtype, MemoryRegion.sbuf, api)
        _isa.nc_transpose(out, x, engine=_isa.engine.vector)
    else:
        ps = _alloc((f, p), x.dtype, MemoryRegion.psum, api)
        _isa.nc_transpose(ps, _in_sbuf(x, api), engine=_isa.engine.tensor)
        out = _alloc((f, p), dtype or x.dtype, MemoryRegion.sbuf, api)
        _isa.tensor_copy(out, ps)
        return out
    if dtype is not None and dtype != x.dtype:
        cast = _alloc((f, p), dtype, MemoryRegion.sbuf, api)
        _isa.tensor_copy(cast, out)
        return cast
    return out


def matmul(x, y, transpose_x=False) -> NkiTensor:
    """``nl.matmul(x, y, transpose_x=False)``: ``x @ y`` (or ``x.T @ y``) as a float32 PSUM tile.
    Without transpose_x, x [M, K] is first transposed to [K, M] (the contraction runs over partitions)."""
    api = "nl.matmul"
    _tile(api, "x", x)
    _tile(api, "y", y)
    xs = _in_sbuf(x, api)
    if not transpose_x:
        xs = transpose(xs)
    out = _alloc((xs.free_size, y.free_size), "float32", MemoryRegion.psum, api)
    _isa.nc_matmul(out, xs, _in_sbuf(y, api))
    return out


__all__ = ["matmul", "transpose"]
