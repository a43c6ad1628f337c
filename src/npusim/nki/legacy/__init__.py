"""``neuronxcc.nki``: the legacy NKI API (NKI "0.1", SDK <= 2.26) on npusim's engines.

    import npusim.nki.legacy as nki            # or, after npusim.nki.compat.install(): import neuronxcc.nki as nki
    import npusim.nki.legacy.language as nl
    import npusim.nki.legacy.isa as nisa

    @nki.jit
    def add(a, b):
        out = nl.ndarray(a.shape, a.dtype, buffer=nl.shared_hbm)
        ix, iy = nl.arange(128)[:, None], nl.arange(512)[None, :]
        nl.store(out[ix, iy], nl.load(a[ix, iy]) + nl.load(b[ix, iy]))
        return out

    y = add(a, b)                       # the legacy docs' simulation call: numpy in, numpy out
    y = nki.simulate_kernel(add, a, b)  # the same
    y = add[2, 2](a, b)                 # an SPMD grid

Entry points: ``jit(mode=...)`` (every mode simulates), ``baremetal``, ``benchmark``, ``profile`` and
``simulate_kernel``. The kernel receives its arguments as legacy tensors (operators, index arrays).
The launch, memories, rules and timeline are the current API's (``npusim.nki.kernel``).
"""
from __future__ import annotations

import functools

from ..kernel import Kernel, last_run  # noqa: F401
from .tensor import legacy
from . import compiler, isa, language, typing  # noqa: F401

#: the legacy jit modes; npusim simulates in every one of them ("trace": a helper traced into the kernel
#: that calls it, so it runs as a plain function inside that kernel)
MODES = ("auto", "jax", "torchxla", "baremetal", "benchmark", "simulation", "trace")


def _legacy_args(fn):
    @functools.wraps(fn)
    def body(*args, **kwargs):
        return fn(*(legacy(a) for a in args), **{k: legacy(v) for k, v in kwargs.items()})
    return body


def jit(func=None, mode="auto", platform_target=None, **options):
    """``@nki.jit`` / ``@nki.jit(mode=...)``: a kernel that runs in npusim when called with numpy arrays."""
    from ..kernel import jit as _jit
    if mode not in MODES:
        from ...core.errors import ConstraintError
        raise ConstraintError("nki.jit", "mode", "one of " + ", ".join(MODES), mode)
    if func is None:
        return lambda f: jit(f, mode=mode, platform_target=platform_target, **options)
    if isinstance(func, Kernel):
        return func
    if mode == "trace":
        return _legacy_args(func)
    return _jit(_legacy_args(func), platform_target=platform_target)


def baremetal(kernel=None, **options):
    """``nki.baremetal(kernel)``: the same simulated launch (npusim has no device to run on)."""
    return jit(kernel, mode="baremetal", **options) if kernel is not None else (lambda f: baremetal(f, **options))


def benchmark(kernel=None, **options):
    return jit(kernel, mode="benchmark") if kernel is not None else (lambda f: benchmark(f, **options))


def profile(kernel=None, **options):
    return jit(kernel, mode="auto") if kernel is not None else (lambda f: profile(f, **options))


def simulate_kernel(kernel, *args, **kwargs):
    """``nki.simulate_kernel(kernel[grid], *numpy_args)``: run it, return its outputs as numpy arrays."""
    k = kernel if isinstance(kernel, Kernel) else jit(kernel)
    return k(*args, **kwargs)


__all__ = ["compiler", "jit", "baremetal", "benchmark", "profile", "simulate_kernel", "language", "isa", "typing",
           "last_run", "MODES"]
