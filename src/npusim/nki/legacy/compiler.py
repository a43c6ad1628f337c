"""``neuronxcc.nki.compiler`` (legacy): the direct-allocation and scheduling hints some published kernels
use. The hints (``skip_middle_end_transformations``, ``no_reorder()``) are accepted and change nothing;
direct allocation (``sbuf.mod_alloc`` / ``psum.mod_alloc`` ...) raises UnsupportedError when a kernel
calls it, because npusim places every tensor itself (runtime.py, alloc.py). A module that only names
them (the attention tutorial binds ``sb_mod = nki.compiler.sbuf.mod_alloc`` at import) imports fine.
"""
from __future__ import annotations

from ...core.errors import UnsupportedError


def _unsupported(api):
    def alloc(*args, **kwargs):
        raise UnsupportedError(api, "direct allocation (manual SBUF/PSUM placement)",
                               "npusim places tensors itself (next-fit, capacity checked)")
    alloc.__name__ = api.rsplit(".", 1)[-1]
    return alloc


class _Buffer:
    def __init__(self, name: str):
        for kind in ("mod_alloc", "alloc", "auto_alloc"):
            setattr(self, kind, _unsupported(f"nki.compiler.{name}.{kind}"))


sbuf = _Buffer("sbuf")
psum = _Buffer("psum")


def skip_middle_end_transformations(fn):
    """A compiler hint: no effect in a simulator."""
    return fn


def no_reorder():
    """A loop directive (``sequential_range(..., directives=nki.compiler.no_reorder())``): no effect."""
    return "no_reorder"


def force_auto_alloc(fn):
    return fn
