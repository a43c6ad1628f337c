"""C++ template arguments in Python: keywords, or the subscription form ``Api[T, arg2, ...](...)``.

``asc.Exp[asc.half, 12, False](dst, src, tmp, n)`` is ``asc.Exp(dst, src, tmp, n, T=asc.half,
taylorExpandLevel=12, isReuseSource=False)``: the subscription binds the template parameters in the C++
order as keywords. ``T`` is checked against the tensors (C++ would deduce it); the others change
behaviour as documented per API.
"""
from __future__ import annotations

import functools


class TemplateFn:
    """A callable API with named template parameters (``params``, in C++ order)."""

    def __init__(self, fn, params: tuple):
        self.fn, self.params = fn, tuple(params)
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __getitem__(self, targs):
        if not isinstance(targs, tuple):
            targs = (targs,)
        if len(targs) > len(self.params):
            from ..core.errors import ConstraintError
            raise ConstraintError(self.fn.__name__, "template arguments", f"at most {len(self.params)}: "
                                  f"<{', '.join(self.params)}>", len(targs))
        return functools.partial(self.fn, **dict(zip(self.params, targs)))


def template(*params):
    """Decorator: ``@template("T", "isReuseSource")``."""
    def wrap(fn):
        return TemplateFn(fn, params)
    return wrap
