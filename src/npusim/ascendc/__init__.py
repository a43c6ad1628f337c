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
from .datacopy import DataCopy, DataCopyAlignmentWarning, DataCopyParams
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
from .datacopy_pad import (DataCopyExtParams, DataCopyPad, DataCopyPadExtParams, DataCopyPadParams,  # noqa: E402
                           SetPadValue)
from .reduce_repeat import (BlockReduceMax, BlockReduceMin, BlockReduceSum, GetReduceRepeatMaxMinSpr,  # noqa: E402
                            ReduceOrder, RepeatReduceSum, WholeReduceMax, WholeReduceMin, WholeReduceSum)
from .compare_scalar import CompareScalar, Compares  # noqa: E402
from .template import TemplateFn  # noqa: E402
from .adv_activation import Exp, FasterGelu, Gelu, Sigmoid, Tanh  # noqa: E402  (Exp: basic and advanced)
from .adv_norm import (GetLayerNormMaxTmpSize, GetLayerNormMinTmpSize, GetSoftMaxMaxTmpSize,  # noqa: E402
                       GetSoftMaxMinTmpSize, LayerNorm, LayerNormTiling, SoftMax, SoftMaxShapeInfo, SoftMaxTiling,
                       AdjustSoftMaxRes,
                       SoftMaxTilingFunc)
from .tiling import (BEGIN_TILING_DATA_DEF, END_TILING_DATA_DEF, GET_TILING_DATA, TILING_DATA_FIELD_DEF_STRUCT,  # noqa: E402,E501
                     REGISTER_TILING_DATA_CLASS, TILING_DATA_FIELD_DEF, TILING_DATA_FIELD_DEF_ARR)
from .framework import ASSERT, GetTPipePtr  # noqa: E402
from .broadcast import BroadCast, Broadcast  # noqa: E402
QuePosition = TPosition          # aliases public kernels use
float16_t = half
float32_t = float
from .framework import Hardware, InitSocState, LocalMemAllocator, ascendc_assert, printf  # noqa: E402
from .reduce_repeat import ReduceDataBlock, ReduceRepeat, ReduceType  # noqa: E402
from .select_bytes import (GetSelectWithBytesMaskMinTmpSize, Select, SelectWithBytesMask,  # noqa: E402,F811
                           SelectWithBytesMaskShapeInfo)
from .framework import (EVENT_ID0, EVENT_ID1, EVENT_ID2, EVENT_ID3, EVENT_ID4, EVENT_ID5, EVENT_ID6,  # noqa: E402
                        EVENT_ID7, event_t)
from .framework import KERNEL_TASK_TYPE_DEFAULT, KERNEL_TYPE_AIV_ONLY  # noqa: E402
from .que_sync import TQueSync  # noqa: E402
from .cpp import CompileError, load_cpp  # noqa: E402  (unchanged .cpp kernels; needs the names above)
