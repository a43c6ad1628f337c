"""npusim.okk: the Sophgo BM1684 OKKernel API (okk.h), bit-exact with Sophgo's C-model, timed by
Sophgo's own cost model. See docs/okk.md."""
from . import spec
from .bdc_fp32_unary import *  # noqa: F401,F403
from .device import Device, current
from .gdma import *  # noqa: F401,F403
from .helpers import *  # noqa: F401,F403
from .host_api import *  # noqa: F401,F403
from .op_types import *  # noqa: F401,F403
from . import op_types as _op_types
from .layout import LocalTensor, SystemTensor
from .types import Padding, dim2, dim4, x8, x16, x32

local_addr_t = int
system_addr_t = int
global_addr_t = int


def info() -> dict[str, dict[str, object]]:
    return spec.info()


__all__ = sorted(n for n in dir() if n.startswith("okk_") or n.startswith("OKKERNEL_")) + [
    "Device", "current", "dim4", "dim2", "Padding", "x32", "x16", "x8", "LocalTensor", "SystemTensor",
    "info", "spec", "load_c"] + _op_types.__all__
from .okk_part_two import *; from .okk_part_two import __all__ as _p2; __all__ += _p2  # noqa: E402,F401,F403 (part two)
from .c.kernel import load_c  # noqa: E402,F401 (run an unchanged .c kernel; docs/okk.md)
