"""npusim: run AI-accelerator kernels, written against their vendors' own APIs, on a CPU.

Targets (each a subpackage, imported on demand): ``npusim.okk`` (Sophgo BM1684 OKKernel),
``npusim.nki`` (AWS Trainium NKI), ``npusim.ascendc`` (Huawei Ascend C), ``npusim.vppl``
(TOPS SMYLEvideo GEN.2 VPPL).
"""
from .core.errors import (ConstraintError, NpuSimError, OutOfBoundsError, RaceError, UninitializedReadError,
                          UninitializedReadWarning, UnsupportedError)
from .core.options import Options, configure, options, set_options
from .core.trace import Trace, profile
from .tune import sweep

__version__ = "0.1.0"
TARGETS = ("okk", "nki", "ascendc", "vppl")

__all__ = ["ConstraintError", "NpuSimError", "OutOfBoundsError", "RaceError", "UninitializedReadError",
           "UninitializedReadWarning", "UnsupportedError", "Options", "configure", "options", "set_options",
           "Trace", "profile", "sweep", "TARGETS", "__version__"]
