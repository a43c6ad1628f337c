"""Loop-iteration scopes for on-chip tiles (NKI's tensor scoping rule).

NKI scopes tensors more strictly than Python: "control blocks in if/else/for statements introduce their
own scope for tensors"; a tensor defined in one may not be used after it ("Local variable '<name>' is
referenced outside of its parent scope", NKI error ``err_local_variable_used_out_of_scope``). So a tile
allocated in an iteration of ``nl.affine_range`` / ``sequential_range`` / ``static_range`` is dead when
the iteration ends: its SBUF/PSUM bytes are free for the next iteration at once (Python would keep them
until the loop variable is rebound, after the next allocation), and using it later is an error.

Plain Python ``for ... in range()`` loops and ``if`` blocks cannot be observed from here: their tiles
live until Python drops them, as before.
"""
from __future__ import annotations


class Scope:
    """One loop iteration: the tiles allocated in it and the views of them that passed their checks."""
    __slots__ = ("label", "finalizers", "views", "ended")

    def __init__(self, label: str):
        self.label = label
        self.finalizers = []    # weakref.finalize objects that free each tile's block (each runs once)
        self.views = []         # views with ``checked`` set: cleared at the end so the next use rechecks
        self.ended = False

    def end(self) -> None:
        self.ended = True
        for fin in self.finalizers:
            fin()               # frees the block now; the finalizer will not run again at GC
        for v in self.views:
            v.checked = False   # the next ISA call on this view goes through rules.tile and fails
        self.finalizers = self.views = ()


def iterate(run, r: range, api: str):
    """Iterate ``r`` giving each iteration its own Scope on ``run`` (nested loops nest scopes)."""
    for i in r:
        scope = Scope(f"{api} iteration {i}")
        run.scopes.append(scope)
        try:
            yield i
        finally:
            run.scopes.remove(scope)    # by identity: generators abandoned by exceptions close in any order
            scope.end()
