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

from .alloc import _PENDING     # weakref of a live tile -> its pending TileRelease (alive: ref in _PENDING)

_ref = weakref.ref


class Scope:
    """One loop iteration: the tiles allocated in it and the views of them that passed their checks."""
    __slots__ = ("label", "strict", "tiles", "views", "ended")

    def __init__(self, label: str, strict: bool = False):
        self.label = label
        self.strict = strict
        self.tiles = []         # (weakref to the tile, its weakref.finalize that frees the block)
        self.views = []         # weakrefs to views with ``checked`` set (unchecked when the tile dies)
        self.ended = False

    def add_view(self, view) -> None:
        views = self.views
        views.append(_ref(view))
        n = len(views)
        if n > 64 and n & (n - 1) == 0:
            self.views = [w for w in views if w() is not None]     # prune at powers of two

    def uncheck(self, root=None) -> None:
        """The next ISA call on these views goes through rules.tile (and sees that the tile is dead)."""
        for w in self.views:
            v = w()
            if v is not None and (root is None or (v.root or v) is root):
                v.checked = False

    def end(self, run) -> None:
        self.ended = True
        if self.strict:
            for _, fin in self.tiles:
                fin()           # frees the block now; the finalizer will not run again at GC
            self.uncheck()
            self.tiles, self.views = (), []
            return
        buffer = lapsed = None
        for ref, fin in self.tiles:
            t = ref()
            if t is not None and ref in _PENDING:       # (fin.alive)
                if t.buffer is not buffer:              # (an enum hashes in Python: look up once per run of
                    buffer = t.buffer                   # tiles of one buffer)
                    lapsed = run.lapsed[buffer]
                lapsed.append((ref, fin, self))
                if len(lapsed) > 64 and len(lapsed) & (len(lapsed) - 1) == 0:   # drop freed ones now and then
                    run.lapsed[buffer] = lapsed = [e for e in lapsed if e[0] in _PENDING]
        self.tiles = []


def evict_one(run, buffer, needed_by: str) -> bool:
    """Free the oldest lapsed tile of ``buffer`` still allocated; False when there is none."""
    lapsed = run.lapsed[buffer]
    while lapsed:
        ref, fin, scope = lapsed.pop(0)
        tile = ref()
        if tile is None or not fin.alive:
            continue
        fin()
        tile.scope = Evicted(scope.label, needed_by)
        scope.uncheck(tile)
        return True
    return False


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
        scope = Scope(f"{api} iteration {i}", strict)
        run.scopes.append(scope)
        try:
            yield i
        finally:
            run.scopes.remove(scope)    # by identity: generators abandoned by exceptions close in any order
            scope.end(run)
