"""The Python side of the callback table: one ctypes function per ``struct NpusimApi`` field.

A C++ call arrives as (packed int64 arguments, the kernel's file, line). Handles are indices into the
running block's list of Python objects (LocalTensor, GlobalTensor, TQue ...); each family of
``api_table`` unpacks its arguments into the same Python call a Python kernel makes, so every rule, cost
and trace event is the Python module's own. An exception is kept, the table's ``failed`` flag is set,
and the C++ side unwinds to the kernel entry, where ``kernel.py`` re-raises it with the .cpp file:line.
"""
from __future__ import annotations

import ctypes
import os

import numpy as np

from ... import ascendc as asc
from ...core import timeline as core_timeline
from ...core.errors import ConstraintError, NpuSimError, OutOfBoundsError
from ..tensor import GM_ADDR
from . import api_table as T

FN = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.POINTER(ctypes.c_int64), ctypes.c_int32, ctypes.c_char_p,
                      ctypes.c_int32)
DTYPES = [getattr(asc, n) for n in T.DTYPE_CODES]
CODE = {d.name: i for i, d in enumerate(DTYPES)}
U64 = (1 << 64) - 1


class Api(ctypes.Structure):
    _fields_ = [("failed", ctypes.c_int32), ("block_idx", ctypes.c_int32), ("block_num", ctypes.c_int32),
                ("reserved", ctypes.c_int32), ("tiling_key", ctypes.c_int64)] + [(f, FN) for f in T.table_fields()]


class _Unset:
    """Handle 0: a C++ tensor or queue object that was never assigned."""

    def __getattr__(self, name):
        raise NpuSimError("a LocalTensor / GlobalTensor was used before it was assigned (AllocTensor, DeQue, "
                          "TBuf::Get or SetGlobalBuffer)")


class Run:
    """The state of one block running a C++ kernel: its handles, its GM, the last error."""

    def __init__(self, api: Api, gm_args: list):
        self.api = api
        self.objs: list = [_Unset()]
        self.error: BaseException | None = None
        self.loc = ""
        self.gm_args = gm_args                      # the launch's GM_ADDR arguments
        self.memory = gm_args[0].memory if gm_args else None
        self.base = self.memory.data.ctypes.data if gm_args else 0

    def new(self, obj) -> int:
        self.objs.append(obj)
        return len(self.objs) - 1

    def gm_addr(self, ptr: int) -> GM_ADDR:
        """The GM_ADDR a C++ pointer (base of npusim's GM + offset) points into."""
        off = ptr - self.base
        inside = [g for g in self.gm_args if g.lo <= off < g.hi] or [g for g in self.gm_args if off == g.hi]
        for g in inside:
            return GM_ADDR(g.memory, off, g.lo, g.hi, None, g.name)
        raise OutOfBoundsError("GM", (off, off + 1), (0, self.memory.size if self.memory else 0),
                               what="bytes of any kernel argument", api="SetGlobalBuffer")

    def ptr(self, addr: GM_ADDR) -> int:
        return self.base + addr.offset


_current: list[Run] = []
_BASENAMES: dict = {}


def current_run() -> Run:
    return _current[-1]


def u64(v: int) -> int:
    return v & U64


def to_i64(v: int) -> int:
    v &= U64
    return v - (1 << 64) if v >> 63 else v


_DECODED: dict = {}


def decode(bits: int, d):
    """The value of a scalar of dtype ``d`` passed as its bits (memoised: kernels pass the same few scalars
    over and over, and the conversion is most of a scalar call's unpacking)."""
    key = (bits, d.name)
    v = _DECODED.get(key)
    if v is None:
        if len(_DECODED) > 4096:
            _DECODED.clear()
        v = _DECODED[key] = _decode(bits, d)
    return v


def _decode(bits: int, d):
    raw = (bits & U64).to_bytes(8, "little")[:d.itemsize]
    v = np.frombuffer(raw, d.np)[0]
    if d.name == "bool":
        return bool(v)
    return int(v) if d.is_int else float(v)


def to_bits(value, d) -> int:
    raw = np.asarray(value).astype(d.np).tobytes()
    return to_i64(int.from_bytes(raw.ljust(8, b"\0"), "little"))


def _mask(a, i):
    return a[i] if a[0] == 1 else [u64(a[i]), u64(a[i + 1])]


# ---- API families: (run, a) -> int; ``a`` is the list of packed arguments ----

def _binary(fn):
    def h(run, a):
        O = run.objs
        if a[0] == 0:
            fn(O[a[1]], O[a[2]], O[a[3]], a[4])
        else:
            fn(O[a[1]], O[a[2]], O[a[3]], _mask(a, 4), a[6], asc.BinaryRepeatParams(*a[7:13]), isSetMask=bool(a[13]))
        return 0
    return h


def _unary(fn):
    def h(run, a):
        O = run.objs
        if a[0] == 0:
            fn(O[a[1]], O[a[2]], a[3])
        elif a[0] == 3:                          # Exp<T, taylorExpandLevel, isReuseSource> (advanced)
            tmp = [O[a[3]]] if a[3] else []
            fn(O[a[1]], O[a[2]], *tmp, a[4], T=O[a[2]].dtype, taylorExpandLevel=a[5], isReuseSource=bool(a[6]))
        else:
            fn(O[a[1]], O[a[2]], _mask(a, 3), a[5], asc.UnaryRepeatParams(*a[6:10]), isSetMask=bool(a[10]))
        return 0
    return h


def _unary_scalar(fn):
    def h(run, a):
        O = run.objs
        k = decode(a[3], DTYPES[a[4]])
        if a[0] == 0:
            fn(O[a[1]], O[a[2]], k, a[5])
        else:
            fn(O[a[1]], O[a[2]], k, _mask(a, 5), a[7], asc.UnaryRepeatParams(*a[8:12]), isSetMask=bool(a[12]))
        return 0
    return h


def _cast(fn):
    def h(run, a):
        O = run.objs
        mode = T.enum_from_code(asc.RoundMode, a[3])
        if a[0] == 0:
            fn(O[a[1]], O[a[2]], mode, a[4])
        else:
            fn(O[a[1]], O[a[2]], mode, _mask(a, 4), a[6], asc.UnaryRepeatParams(*a[7:11]), isSetMask=bool(a[11]))
        return 0
    return h


def _duplicate(fn):
    def h(run, a):
        O = run.objs
        k = decode(a[2], DTYPES[a[3]])
        if a[0] == 0:
            fn(O[a[1]], k, a[4])
        else:
            fn(O[a[1]], k, _mask(a, 4), a[6], a[7], a[8], isSetMask=bool(a[9]))
        return 0
    return h


def _compare(fn):
    def h(run, a):
        O = run.objs
        mode = T.enum_from_code(asc.CMPMODE, a[4])
        if a[0] == 0:
            fn(O[a[1]], O[a[2]], O[a[3]], mode, a[5])
        else:
            fn(O[a[1]], O[a[2]], O[a[3]], mode, _mask(a, 5), a[7], asc.BinaryRepeatParams(*a[8:14]),
               isSetMask=bool(a[14]))
        return 0
    return h


def _select(fn):
    def h(run, a):
        O = run.objs
        src1 = decode(a[5], DTYPES[a[6]]) if a[1] else O[a[5]]
        mode = T.enum_from_code(asc.SELMODE, a[7])
        if a[0] == 0:
            fn(O[a[2]], O[a[3]], O[a[4]], src1, mode, a[8])
        else:
            fn(O[a[2]], O[a[3]], O[a[4]], src1, mode, _mask(a, 8), a[10], asc.BinaryRepeatParams(*a[11:17]),
               isSetMask=bool(a[17]))
        return 0
    return h


def _reduce(with_index):
    def make(fn):
        def h(run, a):
            O = run.objs
            if a[0] == 0:
                extra = (bool(a[5]),) if with_index else ()
                fn(O[a[1]], O[a[2]], O[a[3]], a[4], *extra)
            else:
                extra = (bool(a[8]),) if with_index else ()
                fn(O[a[1]], O[a[2]], O[a[3]], _mask(a, 4), a[6], a[7], *extra)
            return 0
        return h
    return make


def _flag(fn):
    return lambda run, a: fn(T.enum_from_code(asc.HardEvent, a[0]), a[1]) or 0


def _barrier(fn):
    return lambda run, a: fn(T.enum_from_code(asc.pipe_t, a[0])) or 0


def _mask_set(fn):
    def h(run, a):
        mode = T.enum_from_code(asc.MaskMode, a[2])
        if a[0] == 0:
            fn(DTYPES[a[1]], u64(a[3]), u64(a[4]), mode=mode)
        else:
            fn(DTYPES[a[1]], a[3], mode=mode)
        return 0
    return h


def _noarg(fn):
    return lambda run, a: fn() or 0


def _datacopy(fn):
    def h(run, a):
        O = run.objs
        fn(O[a[1]], O[a[2]], a[3] if a[0] == 0 else asc.DataCopyParams(*a[3:7]))
        return 0
    return h


def _tensor1(fn):
    return lambda run, a: fn(run.objs[a[0]]) or 0


def _deq_scale(fn):
    return lambda run, a: fn(decode(a[0], DTYPES[a[1]])) or 0


def _datacopy_pad(fn):
    """forms: 0 GM->UB Ext + PadExt<T>, 1 UB->GM Ext, 2 GM->UB DataCopyParams + DataCopyPadParams,
    3 UB->GM DataCopyParams."""
    def h(run, a):
        O = run.objs
        if a[0] == 0:
            pad = asc.DataCopyPadExtParams(bool(a[8]), a[9], a[10], decode(a[11], DTYPES[a[12]]))
            fn(O[a[1]], O[a[2]], asc.DataCopyExtParams(*a[3:8]), pad)
        elif a[0] == 1:
            fn(O[a[1]], O[a[2]], asc.DataCopyExtParams(*a[3:8]))
        elif a[0] == 2:
            fn(O[a[1]], O[a[2]], asc.DataCopyParams(*a[3:7]),
               asc.DataCopyPadParams(bool(a[7]), a[8], a[9], decode(a[10], O[a[1]].dtype)))
        else:
            fn(O[a[1]], O[a[2]], asc.DataCopyParams(*a[3:7]))
        return 0
    return h


def _whole_reduce(with_order):
    def make(fn):
        def h(run, a):
            O = run.objs
            order = (T.enum_from_code(asc.ReduceOrder, a[10]),) if with_order else ()
            fn(O[a[1]], O[a[2]], _mask(a, 3), *a[5:9], *order, isSetMask=bool(a[9]))
            return 0
        return h
    return make


def _compare_scalar(fn):
    def h(run, a):
        O = run.objs
        k = decode(a[3], DTYPES[a[4]])
        mode = T.enum_from_code(asc.CMPMODE, a[5])
        if a[0] == 0:
            fn(O[a[1]], O[a[2]], k, mode, a[6])
        else:
            fn(O[a[1]], O[a[2]], k, mode, _mask(a, 6), a[8], asc.UnaryRepeatParams(*a[9:13]), isSetMask=bool(a[13]))
        return 0
    return h


def _adv_unary(fn):
    """(form, dst, src, tmp or 0, count or -1, isReuseSource)"""
    def h(run, a):
        O = run.objs
        args = ([O[a[3]]] if a[3] else []) + ([a[4]] if a[4] >= 0 else [])
        fn(O[a[1]], O[a[2]], *args, isReuseSource=bool(a[5]))
        return 0
    return h


def _gelu(fn):
    """(form, dst, src, tmp or 0, count, highPrecision, highPerformance)"""
    def h(run, a):
        O = run.objs
        args = ([O[a[3]]] if a[3] else []) + [a[4]]
        fn(O[a[1]], O[a[2]], *args, highPrecision=bool(a[5]), highPerformance=bool(a[6]))
        return 0
    return h


def _broadcast(fn):
    """(dst, src, tmp or 0, dim, axis, isReuseSource, dstShape[dim], srcShape[dim])"""
    def h(run, a):
        O = run.objs
        dim = a[3]
        tmp = (O[a[2]],) if a[2] else ()
        fn(O[a[0]], O[a[1]], list(a[6:6 + dim]), list(a[6 + dim:6 + 2 * dim]), *tmp, dim=dim, axis=a[4],
           isReuseSource=bool(a[5]))
        return 0
    return h


def _select_bytes(fn):
    """(scalar_first, dst, tensor source, scalar bits, scalar dtype, mask, tmp, firstAxis, srcLastAxis,
    maskLastAxis, isReuseMask)"""
    def h(run, a):
        O = run.objs
        k = decode(a[3], DTYPES[a[4]])
        src = O[a[2]]
        s0, s1 = (k, src) if a[0] else (src, k)
        fn(O[a[1]], s0, s1, O[a[5]], O[a[6]], asc.SelectWithBytesMaskShapeInfo(*a[7:10]), isReuseMask=bool(a[10]))
        return 0
    return h


def _softmax(fn):
    """(form, dst, sum or 0, max or 0, src, tmp or 0, tiling srcM/srcK/srcSize, shape info x4, isReuseSource,
    isBasicBlock, isDataFormatNZ)"""
    def h(run, a):
        O = run.objs
        sm = [O[a[2]], O[a[3]]] if a[2] else []
        tmp = [O[a[5]]] if a[5] else []
        fn(O[a[1]], *sm, O[a[4]], *tmp, asc.SoftMaxTiling(*a[6:9]), asc.SoftMaxShapeInfo(*a[9:13]),
           isReuseSource=bool(a[13]), isBasicBlock=bool(a[14]), isDataFormatNZ=bool(a[15]))
        return 0
    return h


FAMILIES = {"binary": _binary, "binary_cast": _binary, "unary": _unary, "unary_scalar": _unary_scalar,
            "cast": _cast, "duplicate": _duplicate, "compare": _compare, "select": _select,
            "reduce_sum": _reduce(False), "reduce_ext": _reduce(True), "flag": _flag, "barrier": _barrier,
            "mask_set": _mask_set, "noarg": _noarg, "datacopy": _datacopy, "tensor1": _tensor1,
            "deq_scale": _deq_scale, "datacopy_pad": _datacopy_pad, "whole_reduce": _whole_reduce(True),
            "whole_reduce_sum": _whole_reduce(False), "compare_scalar": _compare_scalar, "adv_unary": _adv_unary,
            "gelu": _gelu, "broadcast": _broadcast, "select_bytes": _select_bytes, "softmax": _softmax}


# ---- class methods ----

def _lt_index(run, a):
    return run.new(run.objs[a[0]][a[1]])


def _set_global_buffer(run, a):
    g = asc.GlobalTensor(DTYPES[a[0]])
    g.SetGlobalBuffer(run.gm_addr(a[1]), a[3] if a[2] else None)
    return run.new(g)


def _gt_phy(run, a):
    return run.ptr(run.objs[a[0]].GetPhyAddr(a[1]))


def _init_buffer(run, a):
    pipe, que = run.objs[a[0]], run.objs[a[1]]
    return int(pipe.InitBuffer(que, a[3]) if a[2] < 0 else pipe.InitBuffer(que, a[2], a[3]))


def _tbuf_get(run, a):
    b = run.objs[a[0]]
    return run.new(b.Get(DTYPES[a[1]]) if a[2] < 0 else b.Get(DTYPES[a[1]], a[2]))


def _print(run, a):
    print(ctypes.string_at(a[0]).decode(errors="replace"), end="", flush=True)
    return 0


def _assert(run, a):
    text = ctypes.string_at(a[0]).decode(errors="replace")
    if a[1] == 1:
        raise ConstraintError("GET_TILING_DATA", "tiling", "asc.launch(..., tiling=...) passes the tiling data "
                              "the kernel reads", None)
    raise NpuSimError(f"ASSERT({text}) failed")


METHODS = {
    "LocalTensor_Index": _lt_index,
    "LocalTensor_GetSize": lambda run, a: run.objs[a[0]].GetSize(),
    "LocalTensor_GetValue": lambda run, a: to_bits(run.objs[a[0]].GetValue(a[1]), run.objs[a[0]].dtype),
    "LocalTensor_SetValue": lambda run, a: run.objs[a[0]].SetValue(a[1], decode(a[2], run.objs[a[0]].dtype)) or 0,
    "LocalTensor_ReinterpretCast": lambda run, a: run.new(run.objs[a[0]].ReinterpretCast(DTYPES[a[1]])),
    "LocalTensor_GetPhyAddr": lambda run, a: run.objs[a[0]].GetPhyAddr(),
    "LocalTensor_GetPosition": lambda run, a: int(run.objs[a[0]].GetPosition()),
    "GlobalTensor_SetGlobalBuffer": _set_global_buffer,
    "GlobalTensor_Index": _lt_index,
    "GlobalTensor_GetValue": lambda run, a: to_bits(run.objs[a[0]].GetValue(a[1]), run.objs[a[0]].dtype),
    "GlobalTensor_SetValue": lambda run, a: run.objs[a[0]].SetValue(a[1], decode(a[2], run.objs[a[0]].dtype)) or 0,
    "GlobalTensor_GetSize": lambda run, a: run.objs[a[0]].GetSize(),
    "GlobalTensor_GetPhyAddr": _gt_phy,
    "TPipe_New": lambda run, a: run.new(asc.TPipe()),
    "TPipe_InitBuffer": _init_buffer,
    "TPipe_Reset": lambda run, a: run.objs[a[0]].Reset() or 0,
    "TPipe_AllocEventID": lambda run, a: run.objs[a[0]].AllocEventID(T.enum_from_code(asc.HardEvent, a[1])),
    "TPipe_ReleaseEventID": lambda run, a: run.objs[a[0]].ReleaseEventID(T.enum_from_code(asc.HardEvent, a[1]),
                                                                          a[2]) or 0,
    "TPipe_FetchEventID": lambda run, a: run.objs[a[0]].FetchEventID(T.enum_from_code(asc.HardEvent, a[1])),
    "TQue_New": lambda run, a: run.new(asc.TQue(T.enum_from_code(asc.TPosition, a[0]), a[1]) if a[0] == a[2] else
                                       asc.TQueBind(T.enum_from_code(asc.TPosition, a[0]),
                                                    T.enum_from_code(asc.TPosition, a[2]), a[1])),
    "TQue_AllocTensor": lambda run, a: run.new(run.objs[a[0]].AllocTensor(DTYPES[a[1]])),
    "TQue_EnQue": lambda run, a: int(run.objs[a[0]].EnQue(run.objs[a[1]])),
    "TQue_DeQue": lambda run, a: run.new(run.objs[a[0]].DeQue(DTYPES[a[1]])),
    "TQue_FreeTensor": lambda run, a: run.objs[a[0]].FreeTensor(run.objs[a[1]]) or 0,
    "TQue_VacantInQue": lambda run, a: int(run.objs[a[0]].VacantInQue()),
    "TQue_HasTensorInQue": lambda run, a: int(run.objs[a[0]].HasTensorInQue()),
    "TBuf_New": lambda run, a: run.new(asc.TBuf(T.enum_from_code(asc.TPosition, a[0]))),
    "TBuf_Get": _tbuf_get,
    "TBuf_GetWithOffset": lambda run, a: run.new(run.objs[a[0]].GetWithOffset(DTYPES[a[1]], a[2], a[3])),
    "TQueSync_SetFlag": lambda run, a: asc.TQueSync(T.enum_from_code(asc.pipe_t, a[0]),
                                                    T.enum_from_code(asc.pipe_t, a[1])).SetFlag(a[2]) or 0,
    "TQueSync_WaitFlag": lambda run, a: asc.TQueSync(T.enum_from_code(asc.pipe_t, a[0]),
                                                     T.enum_from_code(asc.pipe_t, a[1])).WaitFlag(a[2]) or 0,
    "Print": _print,
    "Assert": _assert,
}


def _callback(handler):
    """Wrap a handler as the C function of its table field: location bookkeeping and error capture."""
    ext = core_timeline.SOURCE_OVERRIDE

    def cb(args, n, file, line):
        run = _current[-1]
        if file:
            base = _BASENAMES.get(file)
            if base is None:
                base = _BASENAMES[file] = os.path.basename(file.decode(errors="replace"))
            run.loc = f"{base}:{line}"
        ext.append(run.loc)
        try:
            return handler(run, args[:n])
        except BaseException as e:           # noqa: BLE001 - handed back to Python after the C++ unwinds
            run.error = e
            run.api.failed = 1
            return 0
        finally:
            ext.pop()
    return FN(cb)


def _build_table() -> dict:
    rows = dict(T.api_rows())
    out = {}
    for f in T.table_fields():
        if f in rows:
            out[f] = _callback(FAMILIES[rows[f]](getattr(asc, f)))
        else:
            out[f] = _callback(METHODS[f])
    return out


_TABLE = _build_table()      # the ctypes functions must stay alive as long as any kernel library


def install(lib) -> Api:
    """Fill a kernel library's ``npusim_api`` with the callbacks; returns the struct (in the library)."""
    api = Api.in_dll(lib, "npusim_api")
    for f, fn in _TABLE.items():
        setattr(api, f, fn)
    return api
