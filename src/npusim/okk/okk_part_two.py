"""Re-exports of okk part two (binary, select, conversion, bitwise, fixed-point, NN ops)."""
from .bdc_binary import *  # noqa: F401,F403
from .bdc_select import *  # noqa: F401,F403
from .bdc_bitwise import *  # noqa: F401,F403
from .bdc_convert import *  # noqa: F401,F403
from .bdc_matmul import *  # noqa: F401,F403
from .bdc_depthwise_pool import *  # noqa: F401,F403
from .bdc_conv import *  # noqa: F401,F403
from .bdc_linear import *  # noqa: F401,F403
from .bdc_int8 import *  # noqa: F401,F403
from .bdc_fixed_point import *  # noqa: F401,F403
from .bdc_fixed_point_split import *  # noqa: F401,F403
from .types_part_two import fp32_or_addr_t, x32_or_addr_t  # noqa: F401

__all__ = sorted(n for n in dir() if n.startswith("okk_")) + ["fp32_or_addr_t", "x32_or_addr_t"]
