"""NKI tensor handles (``NkiTensor``) over core TensorViews: slicing, ``nl.ds``, reshape, bit views.

On-chip tensors (SBUF, PSUM) keep the partition dimension first: integer indexing on it keeps a size-1
dim, and a view never strides across partitions with a step. HBM tensors have no partition dimension:
integer indexing drops a dim, and contiguous ones reshape freely (reference nki.md §1.2, §1.4).
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..core import dtypes as _dt
from ..core.errors import ConstraintError
from ..core.options import options
from ..core.view import TensorView
from . import access as _access
from . import args as _args
from .plan import sig as _sig


class MemoryRegion(enum.Enum):
    """``nl.sbuf``, ``nl.psum``, ``nl.hbm`` (= ``nl.private_hbm``) and ``nl.shared_hbm``."""
    sbuf = "sbuf"
    psum = "psum"
    private_hbm = "private_hbm"
    shared_hbm = "shared_hbm"

    @property
    def on_chip(self) -> bool:
        return self in (MemoryRegion.sbuf, MemoryRegion.psum)

    def __repr__(self) -> str:
        return f"nl.{self.value}"


SBUF, PSUM = MemoryRegion.sbuf, MemoryRegion.psum     # plain names: enum attribute access is slow


@dataclass(frozen=True)
class DynSlice:
    """``nl.ds(start, size)``: ``size`` elements from ``start`` (the current API's dynamic slice)."""
    start: int
    size: int
    step: int = 1


_new_tensor = object.__new__


def _index_error(param, rule, value):
    return ConstraintError("NkiTensor.__getitem__", param, rule, value)


def _index_int(v) -> int:
    """A slice bound or nl.ds field: an int (a float index is refused, never truncated)."""
    return _args.as_int("NkiTensor.__getitem__", "key", v, rule="slice bounds and nl.ds fields are ints "
                        "(not bools or floats)")


def _set_geometry(t, view, on_chip: bool) -> None:
    """The plain geometry attributes of a tensor over ``view`` (the ISA rules read them for every operand;
    a view never changes after it is made)."""
    t.shape = shape = view.shape
    t.free_size = n = math.prod(shape[1:])         # elements per partition (the N of the cost formulas)
    item = view.dtype.np.itemsize                   # (np.dtype.itemsize: no property call)
    if shape:
        t.partitions = p = shape[0]
        t.nbytes = p * n * item
    else:
        t.partitions = 1
        t.nbytes = item
    t.start_partition = view.lane_lo if on_chip else 0    # (first partition)


class NkiTensor:
    """A tensor in SBUF, PSUM or HBM: a typed strided window (``view``) onto one memory."""
    __slots__ = ("tv", "buffer", "name", "root", "run", "full", "stale", "checked", "on_chip", "in_psum", "free_size",
                 "partitions", "nbytes", "shape", "start_partition",
                 "sig", "scope", "ind", "__weakref__")

    def __init__(self, view: TensorView, buffer: MemoryRegion, name: str, root: "NkiTensor | None", run):
        self.tv = view
        self.buffer = buffer
        self.name = name
        self.root = root        # the allocation this view keeps alive (None: this is the allocation)
        self.run = run
        self.full = False       # (on the allocation) every byte was written: reads skip the init check
        self.stale = False      # (on the allocation) its init map is an earlier tensor's: clear before use
        self.checked = False    # the per-operand ISA rules (rules.compute_tile) passed for this view
        self.sig = None         # (shape, strides, dtype name, in_psum): a cache-key part, built on first use
        self.scope = None       # (on the allocation) the loop-iteration Scope it belongs to (scope.py)
        self.ind = None         # made by .ap(): access.STATIC, or an access.Indirect resolved by the DMA
        self.in_psum = in_psum = buffer is PSUM
        self.on_chip = on_chip = in_psum or buffer is SBUF
        # Plain attributes, not properties: the ISA rules read them for every operand. A view never
        # changes after it is made (``tv`` is set once).
        _set_geometry(self, view, on_chip)

    @classmethod
    def placed(cls, view: TensorView, buffer: MemoryRegion, name: str, run, free_size: int,
               nbytes: int, sig: "int | None" = None) -> "NkiTensor":
        """``NkiTensor(view, buffer, name, None, run)`` for a new on-chip tile whose sizes (and plan.sig,
        when known) the caller's allocation plan already holds (runtime.Run._place). Its init bytes are
        stale: a new tensor is never-written, its init map is cleared when first needed."""
        self = _new_tensor(cls)
        self.tv = view
        self.buffer = buffer
        self.name = name
        self.run = run
        self.full = self.checked = False
        self.stale = True
        self.sig = sig
        self.root = self.scope = self.ind = None
        self.in_psum = buffer is PSUM
        self.on_chip = True
        self.free_size = free_size
        self.partitions = view.shape[0]
        self.nbytes = nbytes
        self.shape = view.shape
        self.start_partition = view.lane_lo
        return self

    # ---- values (what instructions use: whole-array numpy, init tracking kept cheap) ----

    def _covers_root(self) -> bool:
        r = self.root
        if r is None:
            return True
        a, b = self.tv, r.tv
        return a.offset == b.offset and a.shape == b.shape and a.strides == b.strides

    # Init tracking is per allocation (the root): ``full`` means every byte was written, so reads skip
    # the core's init check and writes skip init marking. ``stale`` means the init map of the
    # allocation's bytes still holds what an earlier, freed tensor left there: it is cleared only when
    # a partial access needs it (a write covering the whole tensor makes it irrelevant), which saves a
    # pass over every tile a loop allocates.

    def _fresh_init(self, root) -> None:
        if root.stale:
            root.stale = False
            v = root.tv
            mem = v.memory
            laned = mem.lanes > 1           # (mem.laned without the property call)
            nbytes = v.size * v.dtype.itemsize // max(1, v.shape[0]) if laned else v.nbytes
            # Through the memory (not by hand on mem.init) so its generation moves: a view that cached
            # "all my bytes were written" over these bytes must look again.
            if laned:
                lane0, byte0 = divmod(v.offset, mem.lane_bytes)
                mem.forget_lanes(lane0, lane0 + v.shape[0], byte0, byte0 + nbytes)
            else:
                mem.forget(v.offset, nbytes)

    def read(self, api: str | None = None) -> np.ndarray:
        """The values as a numpy view; never-written elements read as poison (or raise in strict mode)."""
        root = self.root or self
        if root.full:
            a = self.tv._array          # (TensorView.array() without its call, once it was built)
            return a if a is not None else self.tv.array()
        self._fresh_init(root)
        return self.tv.read(api)

    def write(self, values) -> None:
        """Store ``values`` (broadcast to the shape) through this view and mark them written."""
        root = self.root or self
        if root.full:
            self.tv.array()[...] = values
        elif root is self or self._covers_root():
            self.tv.array()[...] = values
            root.full, root.stale = True, False
        else:
            self._fresh_init(root)
            self.tv.write(values)

    def mark_written(self) -> None:
        """After computing straight into ``view.array()``: record the bytes as written."""
        root = self.root or self
        if root.full:
            return
        if root is self or self._covers_root():
            root.full, root.stale = True, False
            return
        self._fresh_init(root)
        if options().track_init:
            self.tv.mark_written()

    # ---- attributes of the vendor's NkiTensor ----

    @property
    def dtype(self):
        """A numpy dtype (ml_dtypes for bf16/fp8), or npusim's DType for tfloat32 (no numpy type)."""
        d = self.tv.dtype
        return d if d.name == "tfloat32" or d.kind == "p" else d.np

    @property
    def ndim(self) -> int:
        return len(self.tv.shape)

    @property
    def size(self) -> int:
        return self.partitions * self.free_size     # (the product of the shape: partitions x free dims)

    @property
    def itemsize(self) -> int:
        return self.tv.dtype.itemsize


    @property
    def strides(self) -> tuple:
        """Element strides; the partition stride of an on-chip tensor is its allocation's free size."""
        item = self.itemsize
        lb = self.tv.memory.lane_bytes
        if not self.on_chip:
            return tuple(s // item for s in self.tv.strides)
        root = self.root or self
        pstride = root.free_size
        return tuple((s // lb) * pstride if (self.tv.memory.laned and s and s % lb == 0 and i == 0)
                     else s // item for i, s in enumerate(self.tv.strides))

    def __repr__(self) -> str:
        return f"NkiTensor({self.name or '?'}, {self.buffer!r}, shape={self.shape}, dtype={self.tv.dtype})"

    # ---- views ----

    def _derive(self, view: TensorView) -> "NkiTensor":
        if self.ind is not None and self.ind is not _access.STATIC:
            raise ConstraintError("NkiTensor", "self", "an indirect access pattern (scalar_offset / "
                                  "vector_offset) is passed to a DMA as it is, not indexed further", self)
        return type(self)(view, self.buffer, self.name, self.root or self, self.run)

    def __getitem__(self, key) -> "NkiTensor":
        if self.ind is None:
            # The view plan of (this geometry, this key) when one was made: a kernel slices the same HBM
            # tensor with the same keys on every launch. The plan key names the parent's geometry (sig:
            # shape, strides, dtype, buffer), its memory's lane size and every index field with its kind
            # (_view_key).
            mem = self.tv.memory
            lb = mem.lane_bytes if mem.lanes > 1 else 0
            parts = _view_key_of(self.sig or _sig(self), lb, key, DynSlice)
            if parts is not None:
                plan = _VIEW_PLANS.get(parts)
                if plan is not None:
                    return self._planned_view(plan)
                plan = _view_plan(self, key)
                if plan is not None:
                    t = self._planned_view(plan)
                    if len(_VIEW_PLANS) > _MAX_VIEW_PLANS:
                        _VIEW_PLANS.clear()
                    _VIEW_PLANS[parts] = plan._replace(sig=t.sig or _sig(t))
                    return t
        # (a key with no plan key (_view_key's None) or one _view_plan refuses: the general path's)
        return self._index(key)

    def _planned_view(self, plan: "_ViewPlan") -> "NkiTensor":
        """``self[key]`` for the key ``plan`` was made for (``_view_plan``): only what depends on where
        this tensor lies (its offset and numpy view) is computed."""
        delta, shape, strides, lb, lane_lo, lane_hi, lo, hi, index, sig, free_size, partitions, nbytes = plan
        v = self.tv
        offset = v.offset + delta
        if index is None:
            array = None
        else:
            parent = v._array
            array = (parent if parent is not None else v.array())[index]
        if lb:
            lane, byte = divmod(offset, lb)
            view = TensorView.placed(v.memory, offset, shape, strides, v.dtype, lane + lane_lo, lane + lane_hi,
                                     byte + lo, byte + hi, array)
        else:
            view = TensorView.placed(v.memory, offset, shape, strides, v.dtype, 0, 1, offset + lo, offset + hi,
                                     array)
        on_chip = self.on_chip
        cls = type(self)
        if cls is not NkiTensor and cls._derive is not NkiTensor._derive:
            return self._derive(view)       # (a subclass's own kind of view)
        t = _new_tensor(cls)                # _derive(view) unrolled (its check needs an ind)
        t.tv = view
        t.buffer = self.buffer
        t.name = self.name
        t.root = self.root or self
        t.run = self.run
        t.full = t.stale = t.checked = False
        t.scope = t.ind = None
        t.sig = sig
        t.in_psum = self.in_psum
        t.on_chip = on_chip
        t.shape = shape
        t.free_size = free_size
        t.partitions = partitions
        t.nbytes = nbytes
        t.start_partition = view.lane_lo if on_chip else 0      # (_set_geometry's rule)
        return t

    def _index(self, key) -> "NkiTensor":
        """``self[key]``, every form and every check (``_basic_view`` is its short path)."""
        if not isinstance(key, tuple):
            key = (key,)
        v = self.tv
        vshape = v.shape
        nd = len(vshape)
        for k in key:
            if k is Ellipsis:
                i = next(i for i, k in enumerate(key) if k is Ellipsis)
                key = key[:i] + (slice(None),) * (nd - (len(key) - 1)) + key[i + 1:]
                break
        if len(key) > nd:
            raise _index_error("key", f"at most {nd} indices for a {nd}-d tensor", key)
        if len(key) < nd:
            key = key + (slice(None),) * (nd - len(key))
        on_chip = self.on_chip
        offset, shape, strides = v.offset, [], []
        axis = 0
        for k, n, s in zip(key, vshape, v.strides):
            if type(k) is slice and k.step is None:     # the common case first (same arithmetic as below)
                start = 0 if k.start is None else _index_int(k.start)
                stop = n if k.stop is None else _index_int(k.stop)
                if start < 0:
                    start += n
                if stop < 0:
                    stop += n
                size = max(0, stop - start)
                if stop > n:
                    raise _index_error("key", f"slice {start}:{stop} lies inside dim {axis} of size {n}", key)
                step = 1
            elif isinstance(k, (bool, np.bool_)):
                raise _index_error("key", "indices are ints, slices or nl.ds(start, size) (not bools)", k)
            elif isinstance(k, (int, np.integer)):
                k = int(k)
                if not -n <= k < n:
                    raise _index_error("key", f"index {k} lies inside dim {axis} of size {n}", key)
                offset += (k % n) * s
                if axis == 0 and on_chip:       # the partition dim stays, with size 1
                    shape.append(1)
                    strides.append(s)
                axis += 1
                continue
            elif isinstance(k, DynSlice):
                start, size, step = (_index_int(k.start), _index_int(k.size), _index_int(k.step))
            elif isinstance(k, slice):
                step = 1 if k.step is None else _index_int(k.step)
                if step <= 0:
                    raise _index_error("key", "slice steps are positive", k)
                start = 0 if k.start is None else _index_int(k.start)
                stop = n if k.stop is None else _index_int(k.stop)
                if start < 0:
                    start += n
                if stop < 0:
                    stop += n
                size = max(0, -(-(stop - start) // step))
                if stop > n:
                    raise _index_error("key", f"slice {start}:{stop} lies inside dim {axis} of size {n}", key)
            else:
                raise _index_error("key", "indices are ints, slices or nl.ds(start, size)", k)
            if start < 0 or size < 0 or (size and start + (size - 1) * step >= n):
                raise _index_error("key", f"range start {start}, size {size} lies inside dim {axis} of size {n}",
                                   key)
            if axis == 0 and on_chip and step != 1:
                raise _index_error("key", "partitions of an SBUF/PSUM view are contiguous (no step on dim 0)", k)
            offset += start * s
            shape.append(size)
            strides.append(s * step)
            axis += 1
        if on_chip and len(shape) < 2:     # on-chip tensors stay at least 2-D
            shape.append(1)
            strides.append(v.dtype.itemsize)
        return self._derive(TensorView.derived(v, offset, tuple(shape), tuple(strides), "NkiTensor.__getitem__"))

    def reshape(self, *shape) -> "NkiTensor":
        """A view with a new shape over the same bytes (on-chip: the partition dim stays as it is)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        api = "NkiTensor.reshape"
        if not 1 <= len(shape) <= _args.MAX_DIMS:
            raise ConstraintError(api, "shape", f"1 to {_args.MAX_DIMS} dims", shape)
        shape = [_args.as_int(api, "shape", d, -1, rule="dims are ints >= 0 (one may be -1)") for d in shape]
        if shape.count(-1) > 1:
            raise ConstraintError(api, "shape", "at most one -1", tuple(shape))
        if -1 in shape:
            rest = int(np.prod([d for d in shape if d != -1]))
            shape[shape.index(-1)] = self.size // rest if rest else 0
        if int(np.prod(shape)) != self.size:
            raise ConstraintError(api, "shape", f"cannot reshape array of size {self.size} into shape "
                                  f"{tuple(shape)}", tuple(shape))
        v = self.tv
        item = v.dtype.itemsize
        if self.on_chip:
            if not shape or shape[0] != v.shape[0]:
                raise ConstraintError(api, "shape", "an SBUF/PSUM reshape keeps the partition dim "
                                      f"({v.shape[0]}) first", tuple(shape))
            free = TensorView(v.memory, v.offset, v.shape[1:], v.strides[1:], v.dtype)
            if not free.is_contiguous():
                raise ConstraintError(api, "self", "the free dims of a reshaped view are contiguous", v.strides)
            strides = [v.strides[0]] + _c_strides(shape[1:], item)
        else:
            if not v.is_contiguous():
                raise ConstraintError(api, "self", "a reshaped HBM view is contiguous", v.strides)
            strides = _c_strides(shape, item)
        return self._derive(TensorView(v.memory, v.offset, shape, strides, v.dtype, api=api))

    def view(self, dtype) -> "NkiTensor":
        """``NkiTensor.view(dtype)``: the same bytes read as another dtype, no copy (a bit reinterpretation).

        Same itemsize: shape and strides stay. Another itemsize: the last dim is rescaled the way numpy's
        ``ndarray.view`` does it (its bytes are regrouped), so it must be contiguous and its byte length a
        multiple of the new itemsize; the partition dim of an on-chip tile never changes. The offset and
        the other strides must be whole elements of the new dtype (the hardware addresses in elements)."""
        api = "NkiTensor.view"
        d = dtype_of(dtype, api)
        v = self.tv
        old, new = v.dtype.itemsize, d.itemsize
        if new == old:
            return self._derive(TensorView(v.memory, v.offset, v.shape, v.strides, d, api=api))
        if len(v.shape) < (2 if self.on_chip else 1):
            raise ConstraintError(api, "dtype", "a view that changes the itemsize needs a free dim to rescale "
                                  "(the partition dim of an on-chip tile stays)", f"{v.shape} {v.dtype} -> {d}")
        last = v.shape[-1]
        if last > 1 and v.strides[-1] != old:
            raise ConstraintError(api, "self", "the last dim is contiguous when the itemsize changes",
                                  v.strides)
        if (last * old) % new:
            raise ConstraintError(api, "dtype", "the last dim's bytes are a whole number of new elements",
                                  f"{last} x {old} B -> {new} B elements")
        if v.offset % new or any(s % new for s in v.strides[:-1]):
            raise ConstraintError(api, "self", "the offset and outer strides are whole new elements",
                                  (v.offset, v.strides))
        shape = v.shape[:-1] + (last * old // new,)
        strides = tuple(v.strides[:-1]) + (new,)
        return self._derive(TensorView(v.memory, v.offset, shape, strides, d, api=api))

    #: The earlier npusim name of ``view(dtype)``, kept so existing kernels and tests keep working.
    view_as = view

    # ---- access patterns and the view methods built on them (access.py) ----

    def ap(self, pattern, offset=0, scalar_offset=None, vector_offset=None, indirect_dim=0, dtype=None):
        """The hardware access pattern ``[[step, num], ...]`` over this tensor's storage (access.py)."""
        if offset is not None and isinstance(offset, (list, tuple)):     # the deep dive's t.ap([32, 16], [1, 32])
            return _access.ap(self, [pattern, offset], 0, scalar_offset, vector_offset, indirect_dim, dtype)
        return _access.ap(self, pattern, offset, scalar_offset, vector_offset, indirect_dim, dtype)

    @property
    def offset(self) -> int:
        """Where the view starts, in elements from the start of its storage."""
        return _access.element_offset(self)

    def get_pattern(self) -> list:
        return _access.get_pattern(self)

    def permute(self, *dims, **kw) -> "NkiTensor":
        return _access.permute(self, *dims, **kw)

    def broadcast(self, dim, size) -> "NkiTensor":
        return _access.broadcast(self, dim, size)

    def expand_dim(self, dim) -> "NkiTensor":
        return _access.expand_dim(self, dim)

    def squeeze_dim(self, dim) -> "NkiTensor":
        return _access.squeeze_dim(self, dim)

    def reshape_dim(self, dim, shape) -> "NkiTensor":
        return _access.reshape_dim(self, dim, shape)

    def flatten_dims(self, start_dim, end_dim) -> "NkiTensor":
        return _access.flatten_dims(self, start_dim, end_dim)

    def slice(self, dim, start, end, step=1) -> "NkiTensor":
        return _access.slice_dim(self, dim, start, end, step)

    def select(self, dim, index) -> "NkiTensor":
        return _access.select(self, dim, index)

    vector_select, rearrange, reinterpret_cast = _access.vector_select, _access.rearrange, view   # Part five

    def is_contiguous(self) -> bool:
        return self.tv.is_contiguous()

    def is_indirect(self) -> bool:
        return self.ind is not None and self.ind is not _access.STATIC

    # ---- host side ----

    def numpy(self) -> np.ndarray:
        """A copy of the values (never-written elements read as poison)."""
        return np.array(self.read(), copy=True)


class _ViewPlan(NamedTuple):
    """What ``t[key]`` is, relative to where ``t`` lies (``_view_plan``): the offset from t's, the new
    geometry, the footprint box's spans (across lanes and inside a lane, or in the whole memory when
    ``lane_bytes`` is 0), the numpy index that slices t's numpy view (None: none is made), and the new
    tensor's sig and sizes."""
    delta: int
    shape: tuple
    strides: tuple
    lane_bytes: int
    lane_lo: int
    lane_hi: int
    lo: int
    hi: int
    index: "tuple | None"
    sig: int
    free_size: int
    partitions: int
    nbytes: int


#: (parent sig, lane bytes, the key's fields with their kinds) -> _ViewPlan (NkiTensor.__getitem__)
_VIEW_PLANS: dict = {}
_MAX_VIEW_PLANS = 4096
_FIELD_TYPES = frozenset((int, type(None)))


def _view_key(sig: int, lane_bytes: int, key, ds=DynSlice) -> "tuple | None":
    """The plan key of ``t[key]`` (``sig``: t's; ``lane_bytes``: of its memory when laned, else 0):
    ``(sig, lane_bytes, ...)`` then per index an int as it is, a slice as ``slice, start, stop, step``, an
    nl.ds as ``DynSlice, start, size, step``; None when an index is of another kind or a field is not a
    Python int or None (a bool, float or numpy number equals an int without being one: such keys take
    the general path, which accepts or refuses them). native/slicing.c's ``view_key`` does the same."""
    parts = [sig, lane_bytes]
    fields = []
    for k in (key if type(key) is tuple else (key,)):
        tk = type(k)
        if tk is int:
            parts.append(k)
            continue
        if tk is slice:
            f = (k.start, k.stop, k.step)
        elif tk is ds:
            f = (k.start, k.size, k.step)
        else:
            return None
        parts.append(tk)
        parts += f
        fields += f
    return tuple(parts) if {*map(type, fields)} <= _FIELD_TYPES else None


def _decide_view_key(sig, lane_bytes, key, ds):
    """The first call: bind ``_view_key_of`` to the C function, or to ``_view_key``."""
    global _view_key_of
    from .native_dma import slicing
    ext = slicing()
    _view_key_of = _view_key if ext is None else ext.view_key
    return _view_key_of(sig, lane_bytes, key, ds)


_view_key_of = _decide_view_key


def _basic_view(t: NkiTensor, key) -> "TensorView | None":
    """The view ``t[key]`` for the common keys (see ``_view_plan``), else None."""
    plan = _view_plan(t, key)
    return None if plan is None else NkiTensor._planned_view(t, plan).tv


def _view_plan(t: NkiTensor, key) -> "_ViewPlan | None":
    """The plan of ``t[key]`` when every index is in range and a Python int, a slice of Python ints (or None)
    with 0 <= start < stop and a positive step, or an ``nl.ds`` of such ints: the common forms
    (``tile[:, a:b]``, ``tensor[i, a:b, c:d]``, ``tile[nl.ds(p, n), :]``). None sends every other key
    (negative or empty ranges, numpy ints, bools, Ellipsis) and every bad one to the general path
    (``NkiTensor._index``), which gives the same view or raises its error.

    The result's elements are a subset of ``t``'s, so it is inside the memory and keeps the laned stride
    rule, because ``t`` passed its own check: no bounds check, and its footprint box is summed here from
    the spans of the new dims (what ``TensorView._box`` computes). Nothing here depends on where ``t``
    lies, only on its geometry (shape, strides, dtype, buffer, lane size) and the key."""
    if type(key) is not tuple:
        key = (key,)
    v = t.tv
    vshape = v.shape
    missing = len(vshape) - len(key)
    if missing:
        if missing < 0:
            return None
        key += _WHOLE[missing]
    if 0 in vshape:
        return None             # no basic key selects from an empty view (and it may lie past the end)
    mem = v.memory
    lb = mem.lane_bytes if mem.lanes > 1 else 0
    offset = 0
    shape, strides = [], []
    lane_lo = lane_hi = lo = hi = 0        # spans: across lanes, inside a lane (or the whole memory)
    partition = t.on_chip                   # the next dim is an on-chip tile's partition dim
    # The new numpy view is a slice of t's: numpy slicing costs a third of the np.ndarray(buffer=...)
    # call array() would make per slice (a kernel slices each input tensor many times).
    # numpy's index: an HBM key as it is (ints drop their dim, slices are in range) unless it holds an
    # nl.ds; on chip it is built (an int on the partition dim keeps it, as slice(k, k + 1))
    np_key = [] if partition else None
    index = key
    for k, n, s in zip(key, vshape, v.strides):
        tk = type(k)
        if tk is slice:
            start = k.start
            stop = k.stop
            if start is None:
                start = 0
            elif type(start) is not int:
                return None
            if stop is None:
                stop = n
            elif type(stop) is not int or stop > n:
                return None
            if not 0 <= start < stop:
                return None
            step = k.step
            if step is None:
                size = stop - start
                offset += start * s
            elif type(step) is not int or step < 1 or (partition and step != 1):
                return None
            else:
                size = (stop - start + step - 1) // step
                offset += start * s
                s *= step
            if np_key is not None:
                np_key.append(k)
        elif tk is int:
            if not 0 <= k < n:
                return None
            offset += k * s
            if partition:                   # the partition dim stays, with size 1
                shape.append(1)
                strides.append(s)
                partition = False
                np_key.append(slice(k, k + 1))
            elif np_key is not None:
                np_key.append(k)
            continue
        elif tk is DynSlice:
            start, size, step = k.start, k.size, k.step
            if (type(start) is not int or type(size) is not int or type(step) is not int or start < 0
                    or size < 1 or step < 1 or start + (size - 1) * step >= n or (partition and step != 1)):
                return None
            offset += start * s
            s *= step
            if np_key is not None:
                np_key.append(slice(start, start + (size - 1) * step + 1, step))
            else:
                index = None        # (rare on HBM: array() builds it when asked)
        else:
            return None
        partition = False
        shape.append(size)
        strides.append(s)
        if size > 1 and s:
            if lb and s % lb == 0:
                span = s // lb * (size - 1)
                if span > 0:
                    lane_hi += span
                else:
                    lane_lo += span
            elif s > 0:
                hi += s * (size - 1)
            else:
                lo += s * (size - 1)
    item = v.dtype.np.itemsize     # (np.dtype.itemsize: no property call)
    if np_key is not None:
        index = tuple(np_key)
        if len(shape) < 2:          # on-chip tensors stay at least 2-D (numpy has no such dim)
            shape.append(1)
            strides.append(item)
            index = None
    if not shape:
        index = None                # (all ints: a scalar, no numpy view)
    shape = tuple(shape)
    n = math.prod(shape[1:])
    p = shape[0] if shape else 1
    return _ViewPlan(offset, shape, tuple(strides), lb, lane_lo, lane_hi + 1 if lb else 1, lo, hi + item, index,
                     None, n, p, p * n * item if shape else item)


_WHOLE = [(slice(None),) * n for n in range(_args.MAX_DIMS + 1)]     # the implicit trailing ``:``s


def _c_strides(shape, item: int) -> list[int]:
    out, acc = [], item
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return out[::-1]


#: The dtypes NKI has (reference §1.3); the MX ones (e8m0 scale, packed x4 data) serve mx.py.
NKI_DTYPES = ("float32", "bfloat16", "float16", "tfloat32", "float8_e4m3", "float8_e4m3fn", "float8_e5m2",
              "int8", "int16", "int32", "uint8", "uint16", "uint32", "bool",
              "float8_e8m0fnu", "float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4")


def dtype_of(d, api: str = "nl.ndarray", param: str = "dtype") -> _dt.DType:
    """npusim's DType for a dtype argument (numpy dtypes, ml_dtypes, names, DType); NKI dtypes only."""
    try:
        dt = _dt.dtype(d)
    except (KeyError, TypeError):
        dt = None
    if dt is None or dt.name not in NKI_DTYPES:
        raise ConstraintError(api, param, "an NKI dtype (" + ", ".join(NKI_DTYPES) + ")", str(d))
    return dt
