"""npusim.ascendc: Huawei Ascend C kernels, in Ascend C's own names, run on a CPU.

    from npusim import ascendc as asc
    asc.launch(kernel, block_num, x, y, z, soc="Ascend910B1")

Template arguments C++ infers come from the tensors' dtypes; the others are the first positional
arguments (``que.AllocTensor(asc.half)``, ``asc.PipeBarrier(asc.PIPE_ALL)``); ``isSetMask=False`` is a
keyword. See docs/ascendc.md.
"""
from .dtypes import (bfloat16_t, bool_t, float, half, int8_t, int16_t, int32_t, int64_t, uint8_t,  # noqa: A004
                     uint16_t, uint32_t)
from .soc import DEFAULT_SOC, SOCS, SocSpec, get_soc
from .soc import info as _soc_info
from .tensor import GM_ADDR, GlobalTensor, LocalTensor, TPosition
from .pipe import TBuf, TPipe, TQue, TQueBind
from .datacopy import DataCopy, DataCopyParams
from .sync import (PIPE_ALL, PIPE_FIX, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_S, PIPE_V, HardEvent,
                   PipeBarrier, SetFlag, WaitFlag, pipe_t)
from .mask import MASK_PLACEHOLDER, MaskMode, ResetMask, SetMaskCount, SetMaskNorm, SetVectorMask
from .repeat import BinaryRepeatParams, UnaryRepeatParams
from .launch import GetBlockIdx, GetBlockNum, GetSocSpec, LaunchResult, SetDeqScale, core_context, launch
from .vector_binary import (Add, AddDeqRelu, AddRelu, AddReluCast, And, Div, Max, Min, Mul, MulCast, Or, Sub,
                            SubRelu, SubReluCast)


def info() -> dict[str, dict[str, object]]:
    """SoC name -> its constants (shown by ``npusim info``)."""
    return _soc_info()
from .vector_unary import (Abs, Adds, Duplicate, Exp, LeakyRelu, Ln, Maxs, Mins, Muls, Not, Reciprocal, Relu,  # noqa: E402
                           Rsqrt, ShiftLeft, ShiftRight, Sqrt)
from .cast_ops import Cast, RoundMode  # noqa: E402
from .compare_select import CMPMODE, SELMODE, Compare, GetCmpMask, Select, SetCmpMask  # noqa: E402
from .reduce import ReduceMax, ReduceMin, ReduceSum  # noqa: E402
from .cpp import CompileError, load_cpp  # noqa: E402  (unchanged .cpp kernels; needs the names above)
