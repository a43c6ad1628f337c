"""The one description of what the C++ route offers: every public name of ``npusim.ascendc`` is one row here.

A row is (name, family). The family says how the name appears in C++ and how a call comes back:
- an API family ("binary", "unary", ...) is a free function in ``namespace AscendC`` with the vendor's
  prototypes; ``generate.py`` writes its C++ text, one function pointer in the callback table
  (``struct NpusimApi``), and ``bridge.py`` turns the packed arguments back into the Python call;
- "enum", "params", "dtype", "constant" are generated declarations (values and defaults read from the
  Python module);
- "class", "type" are hand-written in ``include/npusim_classes.h`` / ``npusim_base.h``;
- "python_only" has no C++ spelling (the launcher, SoC tables, and Python APIs no public .cpp kernel needs yet).

Rows for the vector APIs are derived from the Python tables (``vector_binary.SPECS``,
``vector_unary.SPECS``), so a new row there is picked up by re-running the generator. A public name
that no row covers fails ``tests/ascendc/cpp/test_api_table.py`` (drift).
"""
from __future__ import annotations

import enum
import inspect

from .. import vector_binary, vector_unary

# Families whose C++ text and Python unpacking live in generate.py / bridge.py.
API_FAMILIES = ("binary", "binary_cast", "unary", "unary_scalar", "cast", "duplicate", "compare", "select",
                "reduce_sum", "reduce_ext", "flag", "barrier", "mask_set", "noarg", "datacopy", "tensor1",
                "deq_scale", "block", "datacopy_pad", "whole_reduce", "whole_reduce_sum", "compare_scalar",
                "adv_unary", "gelu", "broadcast", "select_bytes", "softmax")

HAND_ROWS = {
    "Cast": "cast", "Duplicate": "duplicate", "Compare": "compare", "Select": "select",
    "ReduceSum": "reduce_sum", "ReduceMax": "reduce_ext", "ReduceMin": "reduce_ext",
    "SetFlag": "flag", "WaitFlag": "flag", "PipeBarrier": "barrier",
    "SetVectorMask": "mask_set", "SetMaskCount": "noarg", "SetMaskNorm": "noarg", "ResetMask": "noarg",
    "DataCopy": "datacopy", "GetCmpMask": "tensor1", "SetCmpMask": "tensor1", "SetDeqScale": "deq_scale",
    "GetBlockIdx": "block", "GetBlockNum": "block",
    # generated declarations
    "RoundMode": "enum", "CMPMODE": "enum", "SELMODE": "enum", "HardEvent": "enum", "pipe_t": "enum",
    "TPosition": "enum", "MaskMode": "enum",
    "BinaryRepeatParams": "params", "UnaryRepeatParams": "params", "DataCopyParams": "params",
    "MASK_PLACEHOLDER": "constant",
    "PIPE_S": "constant", "PIPE_V": "constant", "PIPE_M": "constant", "PIPE_MTE1": "constant",
    "PIPE_MTE2": "constant", "PIPE_MTE3": "constant", "PIPE_FIX": "constant", "PIPE_ALL": "constant",
    "half": "dtype", "float": "dtype", "bfloat16_t": "dtype", "int8_t": "dtype", "uint8_t": "dtype",
    "int16_t": "dtype", "uint16_t": "dtype", "int32_t": "dtype", "uint32_t": "dtype", "int64_t": "dtype",
    "bool_t": "dtype",
    # hand-written C++ (include/npusim_classes.h, npusim_base.h)
    "GlobalTensor": "class", "LocalTensor": "class", "TPipe": "class", "TQue": "class", "TBuf": "class",
    "GM_ADDR": "type",
    # issue-16 APIs (asca) with a C++ spelling
    "DataCopyPad": "datacopy_pad", "WholeReduceMax": "whole_reduce", "WholeReduceMin": "whole_reduce",
    "WholeReduceSum": "whole_reduce_sum", "CompareScalar": "compare_scalar", "Compares": "compare_scalar",
    "Sigmoid": "adv_unary", "Tanh": "adv_unary", "Gelu": "gelu", "FasterGelu": "gelu",
    "BroadCast": "broadcast", "Broadcast": "broadcast", "SelectWithBytesMask": "select_bytes",
    "ReduceOrder": "enum",
    "DataCopyExtParams": "params", "DataCopyPadParams": "params", "SelectWithBytesMaskShapeInfo": "params",
    "DataCopyPadExtParams": "class", "GetTPipePtr": "class",      # npusim_classes.h (a template / TPipe*)
    "ASSERT": "type", "event_t": "type", "QuePosition": "type", "float16_t": "type", "float32_t": "type",
    "printf": "type", "EVENT_ID0": "type", "EVENT_ID1": "type", "EVENT_ID2": "type", "EVENT_ID3": "type",
    "EVENT_ID4": "type", "EVENT_ID5": "type", "EVENT_ID6": "type", "EVENT_ID7": "type",
    # tiling macros (npusim_kernel_extras.h: a plain C struct; launch packs the dict or dataclass)
    "BEGIN_TILING_DATA_DEF": "type", "END_TILING_DATA_DEF": "type", "TILING_DATA_FIELD_DEF": "type",
    "TILING_DATA_FIELD_DEF_ARR": "type", "REGISTER_TILING_DATA_CLASS": "type", "GET_TILING_DATA": "type",
    "TILING_DATA_FIELD_DEF_STRUCT": "type", "KERNEL_TASK_TYPE_DEFAULT": "type", "KERNEL_TYPE_AIV_ONLY": "type",
    # Python API only for now (no public .cpp kernel in tests/ascendc/public calls them yet)
    "SoftMax": "softmax", "SoftMaxShapeInfo": "params",
    "SoftMaxTiling": "class",      # include/kernel_tiling/kernel_tiling.h (the vendor's 16-field struct)
    "SoftMaxTilingFunc": "python_only", "AdjustSoftMaxRes": "python_only", "GetSoftMaxMaxTmpSize": "python_only",
    "GetSoftMaxMinTmpSize": "python_only", "LayerNorm": "python_only", "LayerNormTiling": "python_only",
    "GetLayerNormMaxTmpSize": "python_only", "GetLayerNormMinTmpSize": "python_only",
    "BlockReduceMax": "python_only", "BlockReduceMin": "python_only", "BlockReduceSum": "python_only",
    "RepeatReduceSum": "python_only", "GetReduceRepeatMaxMinSpr": "python_only", "ReduceRepeat": "python_only",
    "ReduceDataBlock": "python_only", "ReduceType": "python_only", "SetPadValue": "python_only",
    "GetSelectWithBytesMaskMinTmpSize": "python_only", "Hardware": "python_only",
    "LocalMemAllocator": "python_only", "InitSocState": "python_only", "ascendc_assert": "python_only",
    # no C++ spelling
    "TemplateFn": "python_only", "DataCopyAlignmentWarning": "python_only",
    "TQueBind": "class", "TQueSync": "class", "launch": "python_only", "LaunchResult": "python_only",
    "core_context": "python_only", "info": "python_only", "get_soc": "python_only", "SOCS": "python_only",
    "SocSpec": "python_only", "DEFAULT_SOC": "python_only", "GetSocSpec": "python_only",
    "load_cpp": "python_only", "CompileError": "python_only",
}

#: C types of the fields of each params struct, in the Python constructor's order (vendor field types).
PARAM_FIELD_TYPES = {
    "BinaryRepeatParams": ("uint8_t",) * 6,
    "UnaryRepeatParams": ("uint16_t", "uint16_t", "uint8_t", "uint8_t"),
    "DataCopyParams": ("uint16_t",) * 4,
    "DataCopyExtParams": ("uint16_t", "uint32_t", "uint32_t", "uint32_t", "uint32_t"),
    "DataCopyPadParams": ("bool", "uint8_t", "uint8_t", "uint64_t"),
    "SelectWithBytesMaskShapeInfo": ("uint32_t",) * 3,
    "SoftMaxShapeInfo": ("uint32_t",) * 4,
}

#: Enums that are plain (unscoped, global) enums in the vendor headers; the rest are ``enum class`` in AscendC.
PLAIN_ENUMS = ("pipe_t",)

#: Dtype codes shared by the two sides: C++ ``npusim::dtype_code<T>`` and ``bridge.DTYPES``.
DTYPE_CODES = ("half", "float", "bfloat16_t", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t",
               "uint32_t", "int64_t", "bool_t")


def rows() -> dict[str, str]:
    """name -> family for every name the C++ route knows."""
    out: dict[str, str] = {}
    for name, spec in vector_binary.SPECS.items():
        out[name] = "binary_cast" if spec.pairs is not None else "binary"
    for name, spec in vector_unary.SPECS.items():
        out[name] = "unary_scalar" if spec.scalar else "unary"
    out.update(HAND_ROWS)
    return out


def api_rows() -> list[tuple[str, str]]:
    """The rows that are callbacks, in table order (the order of ``struct NpusimApi``)."""
    return [(n, f) for n, f in rows().items() if f in API_FAMILIES and f != "block"]


def public_names(module) -> list[str]:
    """The public names a module exports (what the drift test compares against)."""
    return sorted(n for n, v in vars(module).items() if not n.startswith("_") and not inspect.ismodule(v))


def enum_members(cls) -> list[tuple[str, int]]:
    """(member name, C++ value): int values are kept, others are numbered in definition order.
    Aliases (TPosition.LCM) are listed with their value."""
    out, ordinal = [], {}
    for i, m in enumerate(cls):
        ordinal[m] = i
    for name, m in cls.__members__.items():
        v = m.value if isinstance(m.value, int) else ordinal[m]
        out.append((name, int(v)))
    return out


def enum_from_code(cls, code: int):
    """The inverse of enum_members for one value."""
    first = next(iter(cls))
    if isinstance(first.value, int):
        return cls(code)
    return list(cls)[code]


def param_fields(cls) -> list[tuple[str, str, int]]:
    """(field name, C type, default) from the Python constructor's signature."""
    sig = inspect.signature(cls.__init__)
    names = [p for p in sig.parameters.values() if p.name != "self"]
    types = PARAM_FIELD_TYPES[cls.__name__]
    return [(p.name, t, p.default) for p, t in zip(names, types)]


def is_enum(v) -> bool:
    return isinstance(v, type) and issubclass(v, enum.Enum)

#: Callbacks of the hand-written classes (include/npusim_classes.h), after the API rows in the table.
METHOD_CALLS = (
    "LocalTensor_Index", "LocalTensor_GetSize", "LocalTensor_GetValue", "LocalTensor_SetValue",
    "LocalTensor_ReinterpretCast", "LocalTensor_GetPhyAddr", "LocalTensor_GetPosition",
    "GlobalTensor_SetGlobalBuffer", "GlobalTensor_Index", "GlobalTensor_GetValue", "GlobalTensor_SetValue",
    "GlobalTensor_GetSize", "GlobalTensor_GetPhyAddr",
    "TPipe_New", "TPipe_InitBuffer", "TPipe_Reset", "TPipe_AllocEventID", "TPipe_ReleaseEventID",
    "TPipe_FetchEventID",
    "TQue_New", "TQue_AllocTensor", "TQue_EnQue", "TQue_DeQue", "TQue_FreeTensor", "TQue_VacantInQue",
    "TQue_HasTensorInQue",
    "TBuf_New", "TBuf_Get", "TBuf_GetWithOffset", "TQueSync_SetFlag", "TQueSync_WaitFlag",
    "Print", "Assert",
)


def table_fields() -> list[str]:
    """The function pointers of ``struct NpusimApi``, in order."""
    return [n for n, _ in api_rows()] + list(METHOD_CALLS)
