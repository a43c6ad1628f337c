"""npusim.nki: AWS Trainium NKI (the current, dst-first API) on a CPU.

    import npusim.nki as nki
    import npusim.nki.language as nl
    import npusim.nki.isa as nisa

    @nki.jit
    def kernel(a): ...
    y = nki.simulate(kernel, target="trn2")(np.ones((128, 512), np.float32))

What the official simulator lacks and npusim adds: SBUF/PSUM capacity, compile-rule checks, and a
timing model (Tensor/Vector/Scalar/GpSimd engines and 16 DMA queues on one timeline).
"""
from __future__ import annotations

from .kernel import Kernel, jit, last_run, simulate
from .runtime import NkiInstruction, Run, current, run_context
from .spec import CHIPS, chip
from . import isa, language  # noqa: E402  (npusim.nki.isa / npusim.nki.language are importable)
from . import typing  # noqa: E402  (nki.typing: argument annotations)
from . import collectives  # noqa: E402  (nki.collectives over the programs of a launch)
from ..core.dtypes import DType as dtype  # noqa: E402  (nki.dtype: the annotation of a dtype field)


def info() -> dict[str, dict[str, object]]:
    """chip -> its constants (``npusim info``)."""
    return {name: c.constants() for name, c in CHIPS.items()}


__all__ = ["Kernel", "jit", "simulate", "last_run", "NkiInstruction", "Run", "current", "run_context",
           "CHIPS", "chip", "isa", "language", "typing", "collectives", "dtype", "info"]
