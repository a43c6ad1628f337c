"""Loop-iteration scopes for on-chip tiles.

Two loop kinds, following the current NKI docs ("NKI Loops" deep dive, NKI 0.7):

* **Unrolled loops** (``nl.affine_range`` / ``sequential_range`` / ``static_range``, now aliases of Python
  ``range``): the compiler unrolls them at specialization time, so a tile made in an iteration is an
  ordinary value. It stays usable after the iteration and after the loop (the official matmul
  tutorials keep such tiles in Python lists). Capacity stays honest the way the compiler's allocator
  is: a tile occupies SBUF/PSUM until its last use, not until Python happens to drop it. At the end of
  an iteration its tiles become *lapsed*: still allocated, but when a later allocation does not fit,
  lapsed tiles are evicted, oldest first, until it does. An evicted tile that is used again really was
  live alongside the new one, so that use raises the capacity error, naming the variable.
* **Compiled loops** (``strict=True``, for ``nl.dynamic_range``-style loops whose body is one copy run
  by the hardware): a tile made in an iteration dies when the iteration ends and a later use raises
  "Local variable '<name>' is referenced outside of its parent scope" (NKI's
  ``err_local_variable_used_out_of_scope``).
"""
from __future__ import annotations

import sys
import weakref

_ref = weakref.ref


class Scope:
    """One loop iteration: the tiles allocated in it and the views of them that passed their checks."""
    __slots__ = ("_label", "_index", "strict", "tiles", "views", "ended")

    def __init__(self, label: str, strict: bool = False, index=None):
        self._label = label
        self._index = index     # (a loop iteration's index: label is formatted only for an error message)
        self.strict = strict
        self.tiles = []         # the alloc.TileBlock of each tile allocated in it (a weak reference to the tile)
        self.views = []         # weakrefs to views of those tiles with ``checked`` set (unchecked when it dies)
        self.ended = False

    @property
    def label(self) -> str:
        return self._label if self._index is None else f"{self._label} iteration {self._index}"

    def add_view(self, view) -> None:
        """Remember a view that passed its checks, to uncheck it when its tile dies. A tile itself
        (no root) needs no entry: its block in ``tiles`` / the allocator's ``lapsed`` reaches it."""
        if view.root is None:
            return
        views = self.views
        views.append(_ref(view))
        n = len(views)
        if n > 64 and n & (n - 1) == 0:
            self.views = [w for w in views if w() is not None]     # prune at powers of two

    def uncheck(self, root=None) -> None:
        """The next ISA call on these views goes through rules.tile (and sees that the tile is dead):
        every remembered view, or those of tile ``root``."""
        for w in self.views:
            v = w()
            if v is not None and (root is None or v.root is root):
                v.checked = False

    def end(self, run) -> None:
        self.ended = True
        if self.strict:
            for block in self.tiles:
                tile = block()
                if tile is not None:
                    tile.checked = False
                block.release()     # frees the bytes now; the tile's death will not free them again
            self.uncheck()
            self.tiles, self.views = (), []
            return
        for block in self.tiles:
            allocator = block.allocator
            if allocator is not None:       # still allocated (a tile's death frees its block): it lapses
                lapsed = allocator.lapsed
                lapsed.append(block)
                n = len(lapsed)
                if n > 64 and n & (n - 1) == 0:         # drop freed ones now and then
                    allocator.prune_lapsed()
        self.tiles = []


def evict_one(run, buffer, needed_by: str) -> bool:
    """Free the oldest lapsed tile of ``buffer`` still allocated; False when there is none."""
    lapsed = run.lapsed[buffer]
    while lapsed:
        block = lapsed.pop(0)
        tile = block()
        if tile is None or not block.alive:
            continue
        evict(block, tile, needed_by)
        return True
    return False


def evict(block, tile, needed_by: str) -> None:
    """Free a lapsed tile's bytes for a later request: a later use of the tile raises, naming both."""
    scope = tile.scope
    block.release()
    tile.scope = Evicted(scope.label, needed_by)
    tile.checked = False
    scope.uncheck(tile)


class Evicted:
    """Stands in for the scope of a lapsed tile whose bytes a later allocation took."""
    __slots__ = ("label", "ended", "strict", "by")

    def __init__(self, label: str, by: str):
        self.label = label
        self.ended = self.strict = True
        self.by = by

    def add_view(self, view) -> None:
        pass


def variable_name(t) -> str:
    """The kernel variable bound to tile ``t`` (or its allocation), or ``name[i]`` for a list or tuple
    holding it, searched from the innermost frame out; for error messages only."""
    root = t.root or t
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("npusim.nki"):
            frame = frame.f_back        # the simulator's own frames name their arguments t, dst ...
            continue
        for name, value in frame.f_locals.items():
            if value is t or value is root:
                return name
            if type(value) in (list, tuple):
                for i, item in enumerate(value):
                    if item is t or item is root:
                        return f"{name}[{i}]"
        frame = frame.f_back
    return t.name or f"{t.buffer.value}{list(t.shape)}"


def iterate(run, r: range, api: str, strict: bool = False):
    """Iterate ``r`` giving each iteration its own Scope on ``run`` (nested loops nest scopes)."""
    for i in r:
        scope = Scope(api, strict, i)     # (label: f"{api} iteration {i}")
        run.scopes.append(scope)
        try:
            yield i
        finally:
            run.scopes.remove(scope)    # by identity: generators abandoned by exceptions close in any order
            scope.end(run)
