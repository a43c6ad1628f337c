"""The ctypes side of the shim: one Structure of callbacks mirroring ``okk_callbacks_t``, each callback
calling the npusim.okk Python function of the same name with the values the shim hands over.

The shim does the per-call bookkeeping in C (generate.py): it counts calls, and passes the call's
``file.c:line`` and every const struct argument as a ready Python object that ``_object`` built once per
distinct value and run (ctypes ``py_object``; ``None`` for NULL). So a callback only sets the source
(``core.timeline.SOURCE_OVERRIDE``) and calls the function: no ctypes reads per call. An exception is stored
in ``state.error`` and ``SHARED.failed`` set; the shim then jumps back to the run entry and ``CKernel.run``
re-raises the same exception. An out ``dim4 *`` arrives as the pointer (None when NULL): Python fills a
fresh dim4 and leaves it in ``SHARED.out``, which the shim copies to the kernel's dim4. After a pointer
getter the shim calls ``okk_settle`` before the next instruction (``pointers.settle``), before it reads
that instruction's arguments, as a C store must be seen first.

Object addresses are CPython's ``id()``: ``_objects`` keeps every object the shim may hold alive until the
shim says ``okk_forget`` (each run's start and end, and when its cache is half full, between two calls).
"""
from __future__ import annotations

import ctypes
import os
import struct

from ...core.errors import NpuSimError
from ...core.timeline import SOURCE_OVERRIDE
from .. import types as okk_types
from .. import types_part_two
from . import api_table, pointers
from .api_table import OBJECT_KINDS, arguments

C = ctypes
SCALAR = {"bool": C.c_bool, "int": C.c_int, "short": C.c_short, "unsigned short": C.c_ushort,
          "unsigned int": C.c_uint, "unsigned long long": C.c_ulonglong, "float": C.c_float,
          "local_addr_t": C.c_uint, "system_addr_t": C.c_ulonglong, "op_type_t": C.c_int, "mul_type_t": C.c_int,
          "x32": C.c_uint, "x16": C.c_ushort, "x8": C.c_ubyte, "dim4 *": C.c_void_p, "void *": C.c_void_p,
          **{t: C.py_object for t in OBJECT_KINDS if t != "source"}}
RESULT = {"void": None, "bool": C.c_bool, "int": C.c_int, "unsigned int": C.c_uint,
          "unsigned long long": C.c_ulonglong, "unsigned char *": C.c_void_p}

_I4, _I2, _F1, _U1 = struct.Struct("<4i"), struct.Struct("<2i"), struct.Struct("<f"), struct.Struct("<I")

#: The callbacks' names; a name's index is the shim's function id (its okk_shim_calls slot).
FORWARDED = [name for name, _, _ in api_table.FORWARDED]


class Shared(C.Structure):
    """``okk_shim_shared_t``: one per process, every kernel library points at it."""
    _fields_ = [("failed", C.c_int), ("watching", C.c_int), ("out", C.c_int * 4), ("none", C.c_void_p)]


SHARED = Shared(0, 0, (0, 0, 0, 0), id(None))
_SHARED_BYTES = memoryview(SHARED).cast("B")
_OUT = Shared.out.offset


class OkkAssertionError(NpuSimError, AssertionError):
    """OKKERNEL_ASSERT failed in a C kernel."""

    def __init__(self, file: str, line: int, func: str, assertion: str):
        self.file, self.line, self.func, self.assertion = file, line, func, assertion
        super().__init__(f"{file}:{line}: {func}: OKKERNEL_ASSERT({assertion}) failed")


class RunState:
    """What the callbacks of the running kernel share."""

    def __init__(self):
        self.error: BaseException | None = None
        self.sections: list[int] = []
        self.open_section = False
        self.implicit = False          # the section a run opens itself (kernels that skip okk_initialize)
        self.base = 0                  # total_cycles when that implicit section started
        self.log = print
        self.sources: dict = {}


state = RunState()


def _fail(e: BaseException) -> None:
    state.error = e
    SHARED.failed = 1


def _source(file, line) -> str:
    key = (file, line)
    s = state.sources.get(key)
    if s is None:
        name = C.string_at(file).decode(errors="replace") if file else "?"
        s = state.sources[key] = f"{os.path.basename(name)}:{line}"
    return s


# ---- the Python object of each OBJECT_KINDS value (C pointer -> the record npusim.okk takes) ----

def _dim4(p, line=0):
    return okk_types.dim4(*_I4.unpack(C.string_at(p, 16)))


def _dim2(p, line=0):
    return okk_types.dim2(*_I2.unpack(C.string_at(p, 8)))


def _padding(p, line=0):
    return okk_types.Padding(*_I4.unpack(C.string_at(p, 16)))


def _fp32_or_addr(p, line=0):
    raw = C.string_at(p, 8)
    if raw[0]:
        return types_part_two.fp32_or_addr_t(True, addr=_U1.unpack_from(raw, 4)[0])
    return types_part_two.fp32_or_addr_t(False, val=_F1.unpack_from(raw, 4)[0])


def _x32_or_addr(p, line=0):
    raw = C.string_at(p, 8)
    bits = _U1.unpack_from(raw, 4)[0]
    return types_part_two.x32_or_addr_t(bool(raw[0]), addr=bits) if raw[0] else \
        types_part_two.x32_or_addr_t(False, val=bits)


MAKE = {"source": _source, "const dim4 *": _dim4, "const dim2 *": _dim2, "const Padding *": _padding,
        "const fp32_or_addr_t *": _fp32_or_addr, "const x32_or_addr_t *": _x32_or_addr}
_MAKE_BY_KIND = {OBJECT_KINDS[t]: f for t, f in MAKE.items()}
_objects: list = []


def _object(kind, p, line):
    """okk_object: the Python object of a value the shim has not cached (its address, 0 on an error)."""
    try:
        obj = _MAKE_BY_KIND[kind](p, line)
        _objects.append(obj)
        return id(obj)
    except BaseException as e:       # noqa: BLE001 - every error goes back to Python through the shim
        _fail(e)
        return 0


def _forget():
    _objects.clear()


def _settle():
    """okk_settle: before an instruction, after a pointer getter ran (the shim keeps the flag)."""
    try:
        pointers.settle()
    except BaseException as e:       # noqa: BLE001
        _fail(e)


# ---- the Python function behind each name ----

def _initialize():
    from .. import helpers
    _close_section()
    helpers.okk_initialize()
    state.open_section = True


def _poll():
    from .. import helpers
    helpers.okk_poll()
    _close_section()


def _close_section():
    from ..device import current
    if state.open_section:
        dev = current()
        end = dev.total_cycles
        # the C-model's dump starts a new section at each flush after a parallel region past 30000
        # commands (device.end_parallel): one okk_initialize..okk_poll section reads as several
        cuts = [state.base] + [m for m in dev.flush_cycles if state.base < m < end] + [end]
        dev.flush_cycles.clear()
        for lo, hi in zip(cuts, cuts[1:]):
            if hi - lo or not state.implicit:     # an implicit section that issued nothing is no section
                state.sections.append(hi - lo)
        state.open_section = state.implicit = False
        state.base = 0


def open_implicit_section():
    """A run starts a section: a kernel that never calls okk_initialize still has its cycles counted
    (from the run's start, as on a freshly initialised C-model)."""
    from ..device import current
    state.open_section, state.implicit, state.base = True, True, current().total_cycles


def _get_id_node(node):
    from .. import host_api
    host_api.okk_get_id_node()       # the C-model's node layout is not public: the C struct is left as is


def _set_id_node(node):
    from .. import host_api
    host_api.okk_set_id_node(node)


OVERRIDES = {"okk_initialize": _initialize, "okk_poll": _poll, "okk_get_id_node": _get_id_node,
             "okk_set_id_node": _set_id_node, "okk_global_mem_addr": pointers.okk_global_mem_addr,
             "okk_local_mem_addr": pointers.okk_local_mem_addr, "okk_l2_sram_addr": pointers.okk_l2_sram_addr,
             "okk_dtcm_addr": pointers.okk_dtcm_addr}


def python_function(name: str):
    if name in OVERRIDES:
        return OVERRIDES[name]
    from ... import okk
    return getattr(okk, name)


# ---- callbacks ----

def prototype(ret: str, args: str):
    return C.CFUNCTYPE(RESULT[ret], C.py_object, *(SCALAR[t] for t, _ in arguments(args)))


def _make_callback(name: str, ret: str, args: str):
    fn = python_function(name)
    ext = SOURCE_OVERRIDE
    argv = arguments(args)
    outs = [i for i, (t, _) in enumerate(argv) if t == "dim4 *"]
    if outs:
        return _out_callback(fn, outs[0], ext)
    if ret != "void":
        def value_callback(source, *args):
            ext.append(source)
            try:
                return int(fn(*args))
            except BaseException as e:       # noqa: BLE001 - every error goes back to Python through the shim
                _fail(e)
                return 0
            finally:
                ext.pop()
        return value_callback
    def callback(source, *args):
        ext.append(source)
        try:
            fn(*args)
        except BaseException as e:       # noqa: BLE001
            _fail(e)
        finally:
            ext.pop()
    return callback


def _out_callback(fn, out: int, ext):
    """The stride helpers: ``dim4 *stride`` is filled by the Python function, then left in SHARED.out."""
    def callback(source, *args):
        ext.append(source)
        try:
            a = list(args)
            d = a[out] = okk_types.dim4() if a[out] else None
            fn(*a)
            if d is not None:
                _I4.pack_into(_SHARED_BYTES, _OUT, d.n, d.c, d.h, d.w)
        except BaseException as e:       # noqa: BLE001
            _fail(e)
        finally:
            ext.pop()
    return callback


def _log(file, line, text):
    try:
        state.log(C.string_at(text).decode(errors="replace"), end="")
        return 0
    except BaseException as e:       # noqa: BLE001
        state.error = e
        return 1


def _assert_fail(file, line, func, assertion):
    s = lambda p: C.string_at(p).decode(errors="replace") if p else "?"   # noqa: E731
    state.error = OkkAssertionError(s(file), line, s(func), s(assertion))
    return 1


def callback_struct():
    """(Structure class, instance filled with live callbacks, the ctypes objects to keep alive)."""
    fields, values = [], []
    for name, ret, args in api_table.FORWARDED:
        proto = prototype(ret, args)
        fields.append((name, proto))
        values.append(proto(_make_callback(name, ret, args)))
    log_t = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_int, C.c_void_p)
    assert_t = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_int, C.c_void_p, C.c_void_p)
    object_t = C.CFUNCTYPE(C.c_void_p, C.c_int, C.c_void_p, C.c_int)
    void_t = C.CFUNCTYPE(None)
    fields += [("okk_log", log_t), ("okk_assert_fail", assert_t), ("okk_object", object_t),
               ("okk_forget", void_t), ("okk_settle", void_t)]
    values += [log_t(_log), assert_t(_assert_fail), object_t(_object), void_t(_forget), void_t(_settle)]
    cls = type("okk_callbacks_t", (C.Structure,), {"_fields_": fields})
    return cls, cls(*values), values


_table: list = []


def table():
    """The one callback table of this process (built on first use; every kernel library gets a copy)."""
    if not _table:
        _table.extend(callback_struct())
    return _table
