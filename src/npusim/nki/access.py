"""Access patterns: ``NkiTensor.ap()`` and the view methods built on it (permute, broadcast, slice ...).

An access pattern reads a tensor's storage flattened to 1-D: element ``[i0, i1, ...]`` of the view is
storage element ``offset + sum(step_k * i_k)`` (NKI "Access Patterns" deep dive). The storage of an
SBUF/PSUM tensor is its allocation, ``P x F`` elements (F = elements per partition), so the first
``[step, num]`` pair is the partition pair and its step must be F ("NOT 1"): partitions are contiguous.

A static pattern becomes an ordinary strided view (a core TensorView), which every ISA op accepts.
``scalar_offset`` / ``vector_offset`` make an *indirect* pattern whose addresses depend on SBUF values
read when the instruction runs. ``indirect_dim`` names a dimension of the tensor ``.ap`` is called on
(its row-major stride scales the offsets: nki-library's TensorView "finds the base tensor dimension whose
stride matches", "its stride is ... used by the DMA engine to scale vector_offset values"):
``scalar_offset`` (a 1-element SBUF tile) adds ``value * stride`` to every address; ``vector_offset`` (one
index per position of the pattern's first dim) replaces that dim's term ``i * step`` by
``index[i] * stride`` (a gather or scatter). Indirect patterns are resolved by the DMA (``dma_copy``,
``dma_transpose``) only (``resolve`` below).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np

from ..core.errors import ConstraintError, UninitializedReadError, UninitializedReadWarning
from ..core.options import options
from ..core.view import _INIT_PATTERN, TensorView

AP = "NkiTensor.ap"
MAX_AP_DIMS = 5     # "a strided access pattern with up to 5 dimensions" (partition + 4 free dims)


@dataclass(frozen=True)
class Indirect:
    """An access pattern with a run-time offset: resolved element by element by the DMA."""
    storage: object          # the NkiTensor allocation the pattern addresses
    pattern: tuple           # ((step, num), ...) in elements of ``dtype``
    offset: int
    dim: int                 # indirect_dim (a dim of the tensor)
    stride: int              # that dim's row-major stride, in elements of ``dtype``
    index: object            # the SBUF NkiTensor holding the offset(s)
    vector: bool             # vector_offset (one index per position) or scalar_offset (one value)
    dtype: object            # core DType of the access
    views: bool = False      # made by select / vector_select: view methods may reshape its other dims


#: Marks a view made by ``.ap()`` (static): an access pattern cannot be re-patterned ("nested indexing").
STATIC = "static-ap"


@dataclass(frozen=True)
class Outside:
    """A static on-chip pattern that leaves its tensor (but not the memory): building it is only
    address arithmetic, so the error waits for an instruction that uses it. nki-library's
    output_projection_tkg builds the stationary ``.ap()`` of every (head, h_2) before testing
    ``h_2 < h_2_size`` and skips the matmul of the one past the end."""
    rule: str
    value: str

    def error(self, api: str, param: str) -> ConstraintError:
        return ConstraintError(api, param, self.rule, f"NkiTensor.ap {self.value}")


def raise_if_outside(api: str, param: str, t) -> None:
    """Raise the deferred error of an Outside pattern (rules.compute_tile, dma_move)."""
    if isinstance(t.ind, Outside):
        raise t.ind.error(api, param)


# ---- storage geometry ----

def _storage(t, api):
    root = t.root or t
    if t.tv.offset != root.tv.offset:
        raise ConstraintError(api, "self", "an access pattern is given on a tensor, not on a tile indexed out "
                              "of it (NKI: cannot specify an access pattern on an already indexed tensor)",
                              f"{t!r} starts at element {element_offset(t)} of its storage")
    if t.ind is not None and not (t.ind is STATIC and _whole_storage(t, root)):
        raise ConstraintError(api, "self", "an access pattern is given on a tensor, not on another access "
                              "pattern (NKI: nested indexing)", t)
    return root


def _whole_storage(t, root) -> bool:
    """A static pattern that reads its whole storage in order (nki-library's ``TensorView(t).get_view()``
    of a whole tile): a pattern on it is a pattern on the storage, so it may be given one."""
    v, r = t.tv, root.tv
    if v.offset != r.offset or v.nbytes != r.nbytes:
        return False
    item, shape, strides = v.dtype.itemsize, list(v.shape), list(v.strides)
    if root.on_chip:
        if shape[0] != r.shape[0] or strides[0] != r.strides[0]:
            return False
        shape, strides = shape[1:], strides[1:]
    expect = item
    for n, st in zip(reversed(shape), reversed(strides)):
        if n != 1 and st != expect:
            return False
        expect *= n
    return True


def _geometry(root, d):
    """(partitions, elements per partition, partition byte stride) of the storage read as dtype ``d``."""
    v = root.tv
    if root.on_chip:
        free_bytes = root.free_size * v.dtype.itemsize
        if free_bytes % d.itemsize:
            raise ConstraintError(AP, "dtype", "each partition holds a whole number of elements of the new dtype",
                                  f"{free_bytes} B per partition as {d}")
        return v.shape[0], free_bytes // d.itemsize, v.memory.lane_bytes
    nbytes = v.size * v.dtype.itemsize
    if nbytes % d.itemsize:
        raise ConstraintError(AP, "dtype", "the tensor holds a whole number of elements of the new dtype",
                              f"{nbytes} B as {d}")
    return 1, nbytes // d.itemsize, 0


def element_offset(t) -> int:
    """``NkiTensor.offset``: where the view starts, in elements from the start of its storage."""
    root = t.root or t
    item = t.tv.dtype.itemsize
    delta = t.tv.offset - root.tv.offset
    if root.on_chip:
        lb = t.tv.memory.lane_bytes
        p, b = divmod(delta, lb)
        return p * (root.free_size * root.tv.dtype.itemsize // item) + b // item
    return delta // item


def _pairs(pattern):
    try:
        pairs = [(int(p[0]), int(p[1])) for p in pattern]
        ok = all(len(p) == 2 for p in pattern)
    except (TypeError, ValueError, IndexError):
        ok = False
    if not ok or not pairs:
        raise ConstraintError(AP, "pattern", "a non-empty list of [step, num] pairs of ints", pattern)
    return pairs


def ap(t, pattern, offset=0, scalar_offset=None, vector_offset=None, indirect_dim=0, dtype=None):
    """``t.ap(pattern, offset=0, scalar_offset=None, vector_offset=None, indirect_dim=0, dtype=None)``."""
    from .tensor import NkiTensor, dtype_of
    root = _storage(t, AP)
    d = t.tv.dtype if dtype is None else dtype_of(dtype, AP, "dtype")
    pairs = _pairs(pattern)
    if len(pairs) > MAX_AP_DIMS:
        raise ConstraintError(AP, "pattern", f"at most {MAX_AP_DIMS} [step, num] pairs", pattern)
    if any(n < 1 for _, n in pairs):
        raise ConstraintError(AP, "pattern", "every num is >= 1", pattern)
    if not isinstance(offset, (int, np.integer)) or offset < 0:
        raise ConstraintError(AP, "offset", "a non-negative int (elements from the start of the tensor)", offset)
    offset = int(offset)
    parts, per, lane_stride = _geometry(root, d)
    if scalar_offset is not None and vector_offset is not None:
        raise ConstraintError(AP, "scalar_offset", "at most one of scalar_offset and vector_offset", "both given")
    index = scalar_offset if scalar_offset is not None else vector_offset
    stride = 0
    if index is not None:
        stride = _check_index(t, index, "scalar_offset" if vector_offset is None else "vector_offset", pairs,
                              indirect_dim, d)
        if vector_offset is None and not isinstance(index, NkiTensor):
            index = RegisterIndex(index)            # a VirtualRegister (checked): read when the DMA runs
    if root.on_chip:
        step0, n0 = pairs[0]
        if n0 > 1 and step0 != per:
            raise ConstraintError(AP, "pattern", "the first pair is the partition pair and its step is the "
                                  f"tensor's free size ({per} elements): partitions are contiguous", pairs[0])
    static = [(s, n) for k, (s, n) in enumerate(pairs)]
    if index is not None:           # the placeholder view: its first dim does not move (checked at run time)
        static[0] = (0, static[0][1])
    try:
        view = _static_view(root, d, static, offset, parts, per, lane_stride)
    except ConstraintError as err:
        if index is not None or not root.on_chip:
            raise
        view = _unchecked_view(root, d, static, offset, per, lane_stride)     # raises when outside the memory
        out = NkiTensor(view, root.buffer, root.name, root, root.run)
        out.ind = Outside(err.rule, str(err.value))
        return out
    out = NkiTensor(view, root.buffer, root.name, root, root.run)
    if index is None:
        out.ind = STATIC
    else:
        out.ind = Indirect(root, tuple(pairs), offset, int(indirect_dim), stride, index, vector_offset is not None, d)
    return out


def _check_index(t, index, param, pairs, dim, d) -> int:
    """The rules of an offset tile; returns the row-major stride of the tensor's ``dim`` in ``d`` elements."""
    from .tensor import NkiTensor
    nd = len(t.shape)
    if not isinstance(dim, (int, np.integer)) or not 0 <= dim < nd:
        raise ConstraintError(AP, "indirect_dim", f"a dim of the {nd}-d tensor (0..{nd - 1})", dim)
    from .registers import VirtualRegister
    if param == "scalar_offset" and isinstance(index, VirtualRegister):
        pass                                        # a register offset (nl.fori_loop's induction register)
    elif not isinstance(index, NkiTensor) or not index.on_chip or index.in_psum:
        raise ConstraintError(AP, param, "an SBUF tensor holding the offset(s)" +
                              (" or a VirtualRegister" if param == "scalar_offset" else ""),
                              getattr(index, "buffer", type(index).__name__))
    else:
        _check_index_tile(index, param, pairs)
    stride = int(np.prod(t.shape[dim + 1:])) * t.itemsize
    if stride % d.itemsize:
        raise ConstraintError(AP, "indirect_dim", f"a dim whose stride is whole {d} elements", dim)
    return stride // d.itemsize


class RegisterIndex:
    """A ``VirtualRegister`` given as ``scalar_offset``: an index tile of one element whose value is the
    register's when the DMA resolves the pattern (the DMA docstring: ``scalar_offset=reg_or_tensor``)."""
    __slots__ = ("reg",)
    size = 1
    shape = (1, 1)

    def __init__(self, reg):
        self.reg = reg

    def read(self, api=None):
        return np.array([[self.reg.get(api or AP)]], np.int64)

    def __repr__(self) -> str:
        return f"RegisterIndex({self.reg!r})"


def _check_index_tile(index, param, pairs) -> None:
    if index.ind not in (None, STATIC):
        raise ConstraintError(AP, param, "a static view (not itself an indirect access pattern)", index)
    if index.tv.dtype.kind not in "iu":
        raise ConstraintError(AP, param, "an integer tensor", index.tv.dtype)
    if param == "scalar_offset" and index.size != 1:
        raise ConstraintError(AP, param, "one element", index.shape)
    if param == "vector_offset" and index.size < pairs[0][1]:
        raise ConstraintError(AP, param, f"an index for every position of the pattern's first dim "
                              f"({pairs[0][1]} positions; extra indices are unused)", index.shape)


def _unchecked_view(root, d, pairs, offset, per, lane_stride) -> TensorView:
    """The on-chip view of a pattern without the inside-the-tensor check; the memory's own bounds and
    partitions still hold (TensorView checks them), else the pattern's error is raised at once."""
    v = root.tv
    p0, f0 = divmod(offset, per)
    (_, n0), free = pairs[0], pairs[1:]
    shape = [n0] + [n for _, n in free]
    strides = [lane_stride] + [s * d.itemsize for s, _ in free]
    lo = f0 + sum(min(0, s * (n - 1)) for s, n in free)
    lane0 = (v.offset + p0 * lane_stride) // lane_stride
    if lo < 0 or lane0 + n0 > v.memory.lanes:
        raise ConstraintError(AP, "pattern", "the access stays inside the memory",
                              f"offset {offset}, pattern {[list(p) for p in pairs]}")
    return TensorView(v.memory, v.offset + p0 * lane_stride + f0 * d.itemsize, shape, strides, d, api=AP)


def _static_view(root, d, pairs, offset, parts, per, lane_stride) -> TensorView:
    """The strided TensorView of a static pattern, every element inside the storage."""
    v = root.tv
    item = d.itemsize
    if root.on_chip:
        p0, f0 = divmod(offset, per)
        (s0, n0), free = pairs[0], pairs[1:]
        lo = hi = f0
        for s, n in free:
            lo, hi = lo + min(0, s * (n - 1)), hi + max(0, s * (n - 1))
        if p0 + n0 > parts or lo < 0 or hi >= per:
            raise ConstraintError(AP, "pattern", f"the access stays inside the tensor ({parts} partitions x "
                                  f"{per} elements; free steps stay inside a partition)",
                                  f"offset {offset}, pattern {[list(p) for p in pairs]}")
        shape = [n0] + [n for _, n in free]
        strides = [lane_stride] + [s * item for s, _ in free]
        return TensorView(v.memory, v.offset + p0 * lane_stride + f0 * item, shape, strides, d, api=AP)
    lo = hi = offset
    for s, n in pairs:
        lo, hi = lo + min(0, s * (n - 1)), hi + max(0, s * (n - 1))
    if lo < 0 or hi >= per:
        raise ConstraintError(AP, "pattern", f"the access stays inside the tensor ({per} elements)",
                              f"offset {offset}, pattern {[list(p) for p in pairs]}")
    return TensorView(v.memory, v.offset + offset * item, [n for _, n in pairs], [s * item for s, _ in pairs],
                      d, api=AP)


def get_pattern(t) -> list:
    """``[[stride, count], ...]`` of the view in elements (an on-chip partition stride is the free size)."""
    return [[s, n] for s, n in zip(t.strides, t.shape)]


# ---- view methods (each one a new strided view; no data moves) ----

def _dim(t, api, dim, name="dim"):
    nd = len(t.shape)
    if not isinstance(dim, (int, np.integer)) or not -nd <= dim < nd:
        raise ConstraintError(api, name, f"a dim of the {nd}-d tensor", dim)
    return int(dim) % nd


def _new(t, api, offset, shape, strides):
    v = t.tv
    view = TensorView(v.memory, offset, shape, strides, v.dtype, api=api)
    ind = t.ind
    if not (isinstance(ind, Indirect) and ind.views):
        return t._derive(view)
    # a view of a select / vector_select result: the same run-time offset over the new static pattern
    from .tensor import NkiTensor
    out = NkiTensor(view, t.buffer, t.name, t.root or t, t.run)
    out.ind = replace(ind, pattern=tuple((int(a), int(b)) for a, b in get_pattern(out)),
                      offset=element_offset(out))
    return out


def _no_indirect(t, api, dim_zero=False, param="dim"):
    """View methods take static views, and the views ``select`` / ``vector_select`` make. On a
    ``vector_select`` view dim 0 is the indirect dim: ``dim_zero`` (the call would move, split, merge,
    slice or remove it) raises, as the NkiTensor stub's "After vector_select" rules say."""
    ind = t.ind
    if ind in (None, STATIC):
        return
    if not (isinstance(ind, Indirect) and ind.views):
        raise ConstraintError(api, "self", "a static view (an indirect access pattern has no view methods)", t)
    if ind.vector and dim_zero:
        raise ConstraintError(api, param, "not the indirect dim 0 of a vector_select view (it stays outermost, "
                              "whole)", 0)


def permute(t, *dims, **kw):
    api = "NkiTensor.permute"
    _no_indirect(t, api)
    if "dims" in kw:
        dims = kw.pop("dims")
    elif len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    if kw:
        raise ConstraintError(api, next(iter(kw)), "permute(*dims) or permute(dims=[...])", kw)
    nd = len(t.shape)
    try:
        dims = [int(x) % nd if -nd <= int(x) < nd else -1 for x in dims]
    except (TypeError, ValueError):
        dims = []
    if sorted(dims) != list(range(nd)):
        raise ConstraintError(api, "dims", f"a permutation of 0..{nd - 1}", dims)
    _no_indirect(t, api, dims[0] != 0, "dims")
    if t.on_chip and dims[0] != 0:
        raise ConstraintError(api, "dims", "the partition dim of an SBUF/PSUM tensor stays first", dims)
    v = t.tv
    return _new(t, api, v.offset, [v.shape[i] for i in dims], [v.strides[i] for i in dims])


def broadcast(t, dim, size):
    api = "NkiTensor.broadcast"
    _no_indirect(t, api)
    dim = _dim(t, api, dim)
    _no_indirect(t, api, dim == 0)
    v = t.tv
    if v.shape[dim] != 1:
        raise ConstraintError(api, "dim", "a size-1 dim", f"dim {dim} has size {v.shape[dim]}")
    if t.on_chip and dim == 0:
        raise ConstraintError(api, "dim", "not the partition dim (partitions are contiguous, never repeated)", dim)
    if not isinstance(size, (int, np.integer)) or size < 1:
        raise ConstraintError(api, "size", "a positive int", size)
    shape, strides = list(v.shape), list(v.strides)
    shape[dim], strides[dim] = int(size), 0
    return _new(t, api, v.offset, shape, strides)


def expand_dim(t, dim):
    api = "NkiTensor.expand_dim"
    _no_indirect(t, api)
    nd = len(t.shape)
    if not isinstance(dim, (int, np.integer)) or not -(nd + 1) <= dim <= nd:
        raise ConstraintError(api, "dim", f"a position 0..{nd}", dim)
    dim = int(dim) % (nd + 1)
    _no_indirect(t, api, dim == 0)
    if t.on_chip and dim == 0:
        raise ConstraintError(api, "dim", "after the partition dim (>= 1) of an SBUF/PSUM tensor", dim)
    v = t.tv
    shape, strides = list(v.shape), list(v.strides)
    inner = strides[dim] * shape[dim] if dim < nd else v.dtype.itemsize
    shape.insert(dim, 1)
    strides.insert(dim, inner)
    return _new(t, api, v.offset, shape, strides)


def squeeze_dim(t, dim):
    api = "NkiTensor.squeeze_dim"
    _no_indirect(t, api)
    dim = _dim(t, api, dim)
    _no_indirect(t, api, dim == 0)
    v = t.tv
    if v.shape[dim] != 1:
        raise ConstraintError(api, "dim", "a size-1 dim", f"dim {dim} has size {v.shape[dim]}")
    if t.on_chip and (dim == 0 or len(v.shape) <= 2):
        raise ConstraintError(api, "dim", "an SBUF/PSUM tensor keeps its partition dim and at least 2 dims", dim)
    shape, strides = list(v.shape), list(v.strides)
    del shape[dim], strides[dim]
    return _new(t, api, v.offset, shape, strides)


def reshape_dim(t, dim, shape):
    """Split one dim into ``shape`` (its product is the dim's size; one -1 is inferred)."""
    api = "NkiTensor.reshape_dim"
    _no_indirect(t, api)
    dim = _dim(t, api, dim)
    _no_indirect(t, api, dim == 0)
    v = t.tv
    try:
        new = [int(x) for x in shape]
    except (TypeError, ValueError):
        raise ConstraintError(api, "shape", "a list of ints", shape) from None
    n = v.shape[dim]
    if new.count(-1) == 1:
        rest = int(np.prod([x for x in new if x != -1]))
        new[new.index(-1)] = n // rest if rest and n % rest == 0 else -1
    if not new or any(x < 1 for x in new) or int(np.prod(new)) != n:
        raise ConstraintError(api, "shape", f"sizes whose product is dim {dim}'s size {n}", list(shape))
    if t.on_chip and dim == 0 and len(new) > 1:
        raise ConstraintError(api, "dim", "the partition dim of an SBUF/PSUM tensor is not split", dim)
    strides, acc = [], v.strides[dim]
    for x in reversed(new):
        strides.append(acc)
        acc *= x
    return _new(t, api, v.offset, list(v.shape[:dim]) + new + list(v.shape[dim + 1:]),
                list(v.strides[:dim]) + strides[::-1] + list(v.strides[dim + 1:]))


def flatten_dims(t, start_dim, end_dim):
    """Merge dims ``start_dim..end_dim`` (inclusive) into one; they must be laid out contiguously."""
    api = "NkiTensor.flatten_dims"
    _no_indirect(t, api)
    a, b = _dim(t, api, start_dim, "start_dim"), _dim(t, api, end_dim, "end_dim")
    if b < a:
        raise ConstraintError(api, "end_dim", "end_dim >= start_dim", (start_dim, end_dim))
    _no_indirect(t, api, a == 0, "start_dim")
    if t.on_chip and a == 0 and b > 0:
        raise ConstraintError(api, "start_dim", "the partition dim of an SBUF/PSUM tensor is not merged", a)
    v = t.tv
    for i in range(a, b):
        if v.shape[i] != 1 and v.strides[i] != v.strides[i + 1] * v.shape[i + 1]:
            raise ConstraintError(api, "self", f"dims {a}..{b} are laid out contiguously (stride[i] = "
                                  "stride[i+1] * shape[i+1])", (v.shape, v.strides))
    n = int(np.prod(v.shape[a:b + 1]))
    return _new(t, api, v.offset, list(v.shape[:a]) + [n] + list(v.shape[b + 1:]),
                list(v.strides[:a]) + [v.strides[b]] + list(v.strides[b + 1:]))


def slice_dim(t, dim, start, end, step=1):
    """``t.slice(dim, start, end, step=1)``: ``t[..., start:end:step, ...]`` on one dim."""
    api = "NkiTensor.slice"
    _no_indirect(t, api)
    dim = _dim(t, api, dim)
    _no_indirect(t, api, dim == 0)
    n = t.tv.shape[dim]
    for name, x in (("start", start), ("end", end), ("step", step)):
        if not isinstance(x, (int, np.integer)):
            raise ConstraintError(api, name, "an int", x)
    if step < 1:
        raise ConstraintError(api, "step", "a positive step", step)
    if not 0 <= start <= end <= n:
        raise ConstraintError(api, "end", f"0 <= start <= end <= {n} (dim {dim}'s size)", (start, end))
    if t.on_chip and dim == 0 and step != 1:
        raise ConstraintError(api, "step", "partitions of an SBUF/PSUM view are contiguous (no step on dim 0)",
                              step)
    v = t.tv
    shape, strides = list(v.shape), list(v.strides)
    shape[dim] = max(0, -(-(end - start) // step))
    strides[dim] = v.strides[dim] * step
    return _new(t, api, v.offset + start * v.strides[dim], shape, strides)


def select(t, dim, index):
    """``t.select(dim, index)``: fix one dim at ``index`` and drop it (``t[..., index, ...]``)."""
    api = "NkiTensor.select"
    from .registers import VirtualRegister
    if hasattr(index, "tv") or isinstance(index, VirtualRegister):    # a run-time index (indirect_views.py)
        from .indirect_views import dynamic_select
        return dynamic_select(t, dim, index)
    _no_indirect(t, api)
    dim = _dim(t, api, dim)
    _no_indirect(t, api, dim == 0)
    v = t.tv
    if not isinstance(index, (int, np.integer)):
        raise ConstraintError(api, "index", "an int, or a one-element SBUF tensor or a register for a dynamic "
                              "select",
                              type(index).__name__)
    if not 0 <= index < v.shape[dim]:
        raise ConstraintError(api, "index", f"0 <= index < {v.shape[dim]} (dim {dim}'s size)", index)
    if t.on_chip and (dim == 0 or len(v.shape) <= 2):
        raise ConstraintError(api, "dim", "an SBUF/PSUM tensor keeps its partition dim and at least 2 dims", dim)
    shape, strides = list(v.shape), list(v.strides)
    off = v.offset + int(index) * strides[dim]
    del shape[dim], strides[dim]
    return _new(t, api, off, shape, strides)


# ---- indirect patterns, resolved by the DMA when it runs ----

def _index_values(ind: Indirect, api) -> np.ndarray:
    """The offsets in use order. A 2-D index tile is read column by column ("Hardware uses column-major
    flattening: flat_indices = indices.T.flatten()", the dma_transpose docstring); a (P, 1) tile is its
    partitions in order either way."""
    idx = np.asarray(ind.index.read(api), dtype=np.int64)
    if idx.ndim == 2:
        idx = idx.T
    return idx.reshape(-1)


def flat_elements(ind: Indirect, api) -> np.ndarray:
    """The storage element (in ``ind.dtype``) of every position of the pattern, as an int64 array."""
    shape = [n for _, n in ind.pattern]
    e = np.full(shape, ind.offset, np.int64)
    idx = _index_values(ind, api)
    for k, (s, n) in enumerate(ind.pattern):
        term = np.arange(n, dtype=np.int64) * s
        if k == 0 and ind.vector:
            term = idx[:n] * ind.stride            # the first dim's positions take the offsets instead
        r = [1] * len(shape)
        r[k] = n
        e = e + term.reshape(r)
    if not ind.vector:
        e = e + idx[0] * ind.stride
    return e


def _storage_arrays(ind: Indirect):
    """(values, init) numpy views of the storage as a 2-D (partitions, elements) array of ind.dtype."""
    root = ind.storage
    v = root.tv
    parts, per, lane_stride = _geometry(root, ind.dtype)
    item = ind.dtype.itemsize
    strides = (lane_stride or per * item, item)
    mem = v.memory
    vals = np.ndarray((parts, per), ind.dtype.np, buffer=mem.data, offset=v.offset, strides=strides)
    udt, full = _INIT_PATTERN[item]
    # the storage's box (a scatter marks init bytes only inside it): the memory keeps tracking its marks
    if lane_stride:
        lane, byte = divmod(v.offset, lane_stride)
        box = (lane, lane + parts, byte, byte + per * item)
    else:
        box = mem.flat_box(v.offset, parts * per * item)
    init = np.ndarray((parts, per), udt, buffer=mem.init_to_mark(*box), offset=v.offset, strides=strides)
    return vals, init, full, per, parts


def resolve(ind: Indirect, api: str, oob, param: str):
    """(values array view, init view, full pattern, row ids, col ids, valid mask) of an indirect pattern."""
    vals, init, full, per, parts = _storage_arrays(ind)
    e = flat_elements(ind, api)
    rows, cols = np.divmod(e, per)
    valid = (e >= 0) & (rows < parts)
    if not valid.all() and oob != "skip":
        bad = int(e[~valid].reshape(-1)[0])
        raise ConstraintError(api, param, "every indirect address lies inside the tensor (oob_mode=error; "
                              "oob_mode.skip skips such elements)",
                              f"element {bad} of a {parts * per}-element tensor")
    return vals, init, full, rows, cols, valid


def gather(ind: Indirect, api: str, oob, param: str):
    """The values an indirect source reads, and which positions were in bounds."""
    vals, init, full, rows, cols, valid = resolve(ind, api, oob, param)
    r, c = np.where(valid, rows, 0), np.where(valid, cols, 0)
    out = vals[r, c]
    root = ind.storage
    if options().track_init and not root.full:
        root._fresh_init(root)
        bad = (init[r, c] != full) & valid
        if bad.any():
            err = UninitializedReadError(root.tv.memory.name, 0, int(np.count_nonzero(bad)) * ind.dtype.itemsize,
                                         api)
            if options().uninitialized_is_error():
                raise err
            warnings.warn(f"{err} (they read as poison)", UninitializedReadWarning, stacklevel=4)
            out = out.copy()
            out[bad] = np.nan if ind.dtype.is_float else root.tv.memory.int_poison
    return out, valid


def scatter(ind: Indirect, values: np.ndarray, api: str, oob, param: str, keep=None) -> None:
    """Store ``values`` (the pattern's shape, ind.dtype) through an indirect destination (where ``keep``)."""
    vals, init, full, rows, cols, valid = resolve(ind, api, oob, param)
    if keep is not None:
        valid = valid & keep
    root = ind.storage
    root._fresh_init(root)
    r, c = rows[valid], cols[valid]
    vals[r, c] = values[valid]
    init[r, c] = full


def dma_move(api: str, dst, src, oob_mode, cast_fn):
    """dma_copy's data path when src or dst is an indirect pattern: gather, cast, scatter. Returns the
    (reads, writes) the timeline orders it by: the whole storage of an indirect side and its index tile."""
    raise_if_outside(api, "src", src)
    raise_if_outside(api, "dst", dst)
    oob = "skip" if oob_mode is not None and oob_mode.name == "skip" else "error"
    si = src.ind if src.is_indirect() else None
    di = dst.ind if dst.is_indirect() else None
    # A scalar offset that keeps the pattern inside the tensor is just a strided view at a shifted start:
    # move it as a plain copy (whole-array numpy) instead of element by element.
    s_view, d_view = _resolved_view(si, api), _resolved_view(di, api)
    if (si is None or s_view is not None) and (di is None or d_view is not None):
        s2, d2 = s_view or src, d_view or dst
        x = s2.read(api)
        if s2.tv.dtype == d2.tv.dtype:
            d2.write(x.reshape(d2.shape))
        else:
            d2.write(cast_fn(x, d2.tv.dtype).reshape(d2.shape))
        reads = [si.storage, *_index_reads(si)] if si else [src]
        writes = [di.storage] if di else [dst]
        if di:
            reads.extend(_index_reads(di))
        return reads, writes
    if si is not None:
        vals, valid = gather(si, api, oob, "src")
    else:
        vals, valid = src.read(api), None
    if (si.dtype if si else src.tv.dtype) != (di.dtype if di else dst.tv.dtype):
        vals = cast_fn(vals, di.dtype if di else dst.tv.dtype)
    if di is not None:
        shape = [n for _, n in di.pattern]
        scatter(di, vals.reshape(shape), api, oob, "dst", None if valid is None else valid.reshape(shape))
    elif valid is None or valid.all():
        dst.write(vals.reshape(dst.shape))
    else:                                   # oob_mode.skip: skipped positions keep what dst held
        root = dst.root or dst
        dst._fresh_init(root)
        dst.tv.write(vals.reshape(dst.shape), where=valid.reshape(dst.shape))
    reads = [si.storage, *_index_reads(si)] if si else [src]
    writes = [di.storage] if di else [dst]
    if di:
        reads.extend(_index_reads(di))
    return reads, writes


def _index_reads(ind: Indirect) -> list:
    """The index tile the DMA reads (ordered after its writer); a register offset is no memory access."""
    return [] if isinstance(ind.index, RegisterIndex) else [ind.index]


def _resolved_view(ind, api):
    """A scalar-offset pattern as the static view it is this time (None: a vector offset, or out of bounds)."""
    if ind is None or ind.vector:
        return None
    from .tensor import NkiTensor
    shift = int(_index_values(ind, api)[0]) * ind.stride
    off = ind.offset + shift
    if off < 0:
        return None
    root = ind.storage
    parts, per, lane = _geometry(root, ind.dtype)
    try:
        view = _static_view(root, ind.dtype, list(ind.pattern), off, parts, per, lane)
    except ConstraintError:
        return None                       # out of bounds: the element-wise path applies oob_mode
    return NkiTensor(view, root.buffer, root.name, root, root.run)


from .indirect_views import vector_select  # noqa: E402,F401  (NkiTensor.vector_select)
from .rearrange import rearrange  # noqa: E402,F401  (NkiTensor.rearrange)
