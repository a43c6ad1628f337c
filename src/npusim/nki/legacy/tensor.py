"""Legacy tiles: an ``NkiTensor`` with the legacy API's operators and index expressions.

``c = a + b``, ``t / 4``, ``acc[...] += x``, ``t[i_p, i_f]`` with ``nl.arange`` indices, ``out[i] = value``
(a copy into the view) and ``t.broadcast_to(shape)``. Each operator is the ``nl`` function of the same
name, so it runs on the same engines with the same checks and costs as the current API.

Block tiles (``nl.ndarray((n, nl.par_dim(128), F))``): the partition dim is not first. ``BlockTile`` keeps
one SBUF tile ``(128, n, F)`` and gives ``t[i, ...]`` (an int per block dim) as the ``(128, F)`` tile of
block i.
"""
from __future__ import annotations

import numpy as np

from ...core.errors import ConstraintError
from .. import language as _current_nl
from ..tensor import _WHOLE, NkiTensor
from . import index as _index

_tensor_getitem = NkiTensor.__getitem__


#: numpy's integer scalar types (np.int32 ...): a bound of one of these is made a Python int. (A set
#: lookup, not isinstance: a key has several bounds. Anything else stays as written, and the views'
#: general path takes it or raises for it.)
_NP_INTS = frozenset(t for t in set(np.sctypeDict.values()) if issubclass(t, np.integer))


def _plain_slice(k: slice) -> slice:
    """``k`` with numpy-int bounds made Python ints (other bounds as they are: the general path judges them)."""
    a, b, c = k.start, k.stop, k.step
    return slice(int(a) if type(a) in _NP_INTS else a, int(b) if type(b) in _NP_INTS else b,
                 int(c) if type(c) in _NP_INTS else c)


def _plain_key(key: tuple):
    """``key`` with numpy ints (as ints and slice bounds) made Python ints (``key`` itself when it has
    none), or None when an entry is not an int or a slice. (Kernels compute bounds from numpy arrays,
    ``h_start = h_starts[i]``: the views' short path takes Python ints only.)"""
    out = None
    i = -1
    for k in key:
        i += 1
        tk = type(k)
        if tk is int:
            continue
        if tk is slice:
            a, b, c = k.start, k.stop, k.step
            if (type(a) is int or a is None) and (type(b) is int or b is None) and (type(c) is int or c is None):
                continue
            k = _plain_slice(k)
        elif tk in _NP_INTS:
            k = int(k)
        else:
            return None
        if out is None:
            out = list(key)
        out[i] = k
    return key if out is None else tuple(out)


class LegacyTensor(NkiTensor):
    # (No _derive of its own: NkiTensor's makes a tensor of type(self), and its __getitem__ builds the
    # view's tensor inline only for classes that keep NkiTensor._derive.)
    __slots__ = ()

    def __getitem__(self, key):
        if type(key) is tuple:
            # One pass: an index array anywhere makes it an affine view (index.has_index_arrays); numpy ints
            # (as ints or slice bounds) are made the Python ints the views' short path takes.
            ints = None
            i = -1
            for k in key:
                i += 1
                tk = type(k)
                if tk is int:
                    continue
                if tk is slice:
                    a, b, c = k.start, k.stop, k.step
                    if (type(a) is int or a is None) and (type(b) is int or b is None) and (
                            type(c) is int or c is None):
                        continue
                    k = _plain_slice(k)
                elif tk is np.ndarray or isinstance(k, np.ndarray):
                    return _index.affine_view(self, key)
                elif tk in _NP_INTS:
                    k = int(k)
                else:
                    continue
                if ints is None:
                    ints = list(key)
                ints[i] = k
            if ints is not None:
                try:
                    return _tensor_getitem(self, tuple(ints))      # the same view as key's
                except ConstraintError:
                    pass                # key's own error (or its out-of-bounds index), below
        elif isinstance(key, np.ndarray):
            return _index.affine_view(self, key)
        elif key is Ellipsis:
            key = _WHOLE[len(self.shape)]   # ``t[...] = x``: every dim whole, the views' short path
        try:
            return _tensor_getitem(self, key)
        except ConstraintError:
            # an HBM slice past the end (``in[256:384]`` of 288 rows) is legal under a mask that leaves the
            # outside out: as index arrays it becomes an OutOfBoundsIndex for nl.load / nl.store / dma_copy
            grid = None if self.on_chip else _index.slices_as_arrays(key, self.shape)
            if grid is None:
                raise
            return _index.affine_view(self, grid)

    def __setitem__(self, key, value) -> None:
        _assign.assign(self[key], value)

    def reshape(self, *shape, **kwargs):
        """``t.reshape(shape)`` or ``t.reshape(shape=...)`` (the vision samples pass it by keyword)."""
        if "shape" in kwargs:
            shape = (kwargs.pop("shape"),)
        if kwargs:
            raise ConstraintError("NkiTensor.reshape", next(iter(kwargs)), "a parameter of reshape", kwargs)
        return super().reshape(*shape)

    def broadcast_to(self, shape):
        # (nl.broadcast_to's body: one frame fewer between the kernel and the engines, which every event's
        # source lookup walks)
        t = _current_nl.broadcast_to(self, shape)
        if type(t) is NkiTensor:        # (legacy(t), inlined)
            t.__class__ = LegacyTensor
        return t

    # ---- operators: the nl functions, called directly (one frame each) ----
    def __add__(self, o): return _nl.add(self, o)
    def __radd__(self, o): return _nl.add(o, self)
    def __sub__(self, o): return _nl.subtract(self, o)
    def __rsub__(self, o): return _nl.subtract(o, self)
    def __mul__(self, o): return _nl.multiply(self, o)
    def __rmul__(self, o): return _nl.multiply(o, self)
    def __truediv__(self, o): return _nl.divide(self, o)
    def __rtruediv__(self, o): return _nl.divide(o, self)
    def __pow__(self, o): return _nl.power(self, o)

    def __neg__(self):
        return _nl.negative(self)

    # ``t op= x`` updates t in place (assign.update) and gives t back
    def __iadd__(self, o):
        _assign.update(self, "add", o)
        return self

    def __isub__(self, o):
        _assign.update(self, "subtract", o)
        return self

    def __imul__(self, o):
        _assign.update(self, "multiply", o)
        return self


def legacy(t):
    """Give a current-API tensor (and any tensors in tuples/lists) the legacy operators, in place."""
    if type(t) is NkiTensor:
        t.__class__ = LegacyTensor
    elif isinstance(t, (tuple, list)):
        for x in t:
            legacy(x)
    return t


def _block_ints(key):
    """The block indices as Python ints, or None when one is not an int."""
    out = []
    for b in key:
        if type(b) is not int:
            if not isinstance(b, (int, np.integer)):
                return None
            b = int(b)
        out.append(b)
    return tuple(out)


class BlockTile:
    """A tile whose partition dim is not first: ``shape = (*blocks, P, *free)``, stored as one
    ``(P, *blocks, *free)`` tile (each block is a (P, *free) tile of its own)."""

    def __init__(self, base: LegacyTensor, nblocks: int):
        self.base = base
        self.nblocks = nblocks
        # (key, view) of the last ``self[key]`` with a key of ints and slices: ``t[key] += x`` calls
        # ``t[key] = view`` next with that same key and view, an assignment of the view to itself (a no-op)
        self._last = None

    @property
    def shape(self) -> tuple:
        s = self.base.shape
        return tuple(s[1:1 + self.nblocks]) + (s[0],) + tuple(s[1 + self.nblocks:])

    @property
    def dtype(self):
        return self.base.dtype

    @property
    def buffer(self):
        return self.base.buffer

    def _split(self, key) -> tuple[tuple, tuple]:
        """(the block ints, the rest of the key)."""
        key = key if isinstance(key, tuple) else (key,)
        nb = self.nblocks
        if nb == 1 and len(key) > 1 and type(key[0]) is int:
            return key[:1], key[1:]         # (the usual one block index, as _block_ints gives it)
        blocks = _block_ints(key[:nb]) if len(key) >= nb else None
        if blocks is None:
            raise ConstraintError("NkiTensor.__getitem__", "key", "a block tile is indexed by an int per block "
                                  "dim before its partition dim", key)
        return blocks, key[nb:]

    def _folded(self, blocks: tuple, rest: tuple):
        """``base[:, *blocks][rest]`` made by one slicing of the base, ``base[rest[0], *blocks, *rest[1:]]``
        (the same dims, offset and strides), when ``rest`` is ints and slices; None otherwise and when that
        key fails (the two slicings then give their view or their own error)."""
        rest = _plain_key(rest)
        if rest is None:
            return None
        try:
            return _tensor_getitem(self.base, (rest[0],) + blocks + rest[1:])
        except ConstraintError:
            return None

    def __getitem__(self, key):
        k = key if isinstance(key, tuple) else (key,)
        if self.nblocks == 1 and len(k) > 1 and type(k[0]) is int:
            blocks, rest = k[:1], k[1:]     # (the usual ``t[i, :, a:b]``: _split's first case, inlined)
        else:
            if len(k) < self.nblocks:
                blocks = _block_ints(k)
                if blocks is not None:
                    # fewer block indices than block dims: the remaining block dims stay (a smaller block tile)
                    return BlockTile(self.base[(slice(None),) + blocks], self.nblocks - len(k))
            blocks, rest = self._split(k)
        out = self._folded(blocks, rest) if rest else None
        if out is not None:
            self._last = (key, out)         # (a folded key holds no index arrays)
            return out
        tile = self.base[(slice(None),) + blocks]
        out = tile[rest] if rest else tile
        # only keys that cannot change in between (an index array could be modified in place)
        self._last = None if _index.has_index_arrays(rest) else (key, out)
        return out

    def __setitem__(self, key, value) -> None:
        last = self._last
        if last is not None and last[0] is key and last[1] is value:
            # ``t[key] += x``: value is the view ``t[key]`` gave (same base, same key, so the same view)
            # updated in place; assigning it to itself is a no-op (assign.assign), skipped before the views
            # are made again
            self._last = None
            return
        blocks, rest = self._split(key)
        if rest:
            view = self._folded(blocks, rest)
            if view is not None:
                _assign.assign(view, value)         # (what tile[rest] = value does)
                return
        tile = self.base[(slice(None),) + blocks]
        if rest:
            tile[rest] = value
        else:
            tile[...] = value

    def __repr__(self) -> str:
        return f"BlockTile(shape={self.shape}, dtype={self.base.tv.dtype})"


# The operators call the legacy nl functions, and language.py imports this module: bound here, after the
# classes it needs, instead of an import statement inside each operator (a per-call importlib lookup).
from . import assign as _assign  # noqa: E402
from . import language as _nl  # noqa: E402
