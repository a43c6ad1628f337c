"""The ctypes side of the shim: one Structure of callbacks mirroring ``okk_callbacks_t``, each callback
converting C arguments to npusim.okk's Python ones and calling the Python function of the same name.

Every callback runs with the kernel's ``file.c:line`` as the source of the events it records
(``core.timeline.SOURCE_OVERRIDE``). An exception is stored in ``state.error`` and the callback returns 1;
the shim then jumps back to the run entry and ``CKernel.run`` re-raises the same exception.
"""
from __future__ import annotations

import ctypes
import os
import struct
from collections import Counter

from ...core.errors import NpuSimError
from ...core.timeline import SOURCE_OVERRIDE
from .. import types as okk_types
from .. import types_part_two
from . import pointers
from .api_table import C_ONLY, FUNCTIONS, arguments

C = ctypes
SCALAR = {"bool": C.c_bool, "int": C.c_int, "short": C.c_short, "unsigned short": C.c_ushort,
          "unsigned int": C.c_uint, "unsigned long long": C.c_ulonglong, "float": C.c_float,
          "local_addr_t": C.c_uint, "system_addr_t": C.c_ulonglong, "op_type_t": C.c_int, "mul_type_t": C.c_int,
          "x32": C.c_uint, "x16": C.c_ushort, "x8": C.c_ubyte}
RESULT = {"bool": C.c_bool, "int": C.c_int, "unsigned int": C.c_uint, "unsigned long long": C.c_ulonglong,
          "unsigned char *": C.c_void_p}

_I4, _I2, _F1, _U1 = struct.Struct("<4i"), struct.Struct("<2i"), struct.Struct("<f"), struct.Struct("<I")


class OkkAssertionError(NpuSimError, AssertionError):
    """OKKERNEL_ASSERT failed in a C kernel."""

    def __init__(self, file: str, line: int, func: str, assertion: str):
        self.file, self.line, self.func, self.assertion = file, line, func, assertion
        super().__init__(f"{file}:{line}: {func}: OKKERNEL_ASSERT({assertion}) failed")


class RunState:
    """What the callbacks of the running kernel share."""

    def __init__(self):
        self.error: BaseException | None = None
        self.calls: Counter = Counter()
        self.sections: list[int] = []
        self.open_section = False
        self.implicit = False          # the section a run opens itself (kernels that skip okk_initialize)
        self.base = 0                  # total_cycles when that implicit section started
        self.log = print
        self.sources: dict = {}


state = RunState()


def _source(file, line) -> str:
    key = (file, line)
    s = state.sources.get(key)
    if s is None:
        name = C.string_at(file).decode(errors="replace") if file else "?"
        s = state.sources[key] = f"{os.path.basename(name)}:{line}"
    return s


# ---- argument conversion (C pointer -> the Python record npusim.okk takes; None for NULL) ----

_DIM4S: dict = {}       # raw 16 bytes -> dim4: kernels pass the same few shapes and strides again and again


def _dim4(p):
    """A const dim4 * as a dim4 (shared between calls with the same values: npusim.okk's functions only
    read a const dim4)."""
    if not p:
        return None
    raw = C.string_at(p, 16)
    d = _DIM4S.get(raw)
    if d is None:
        if len(_DIM4S) >= 4096:
            _DIM4S.clear()
        d = _DIM4S[raw] = okk_types.dim4(*_I4.unpack(raw))
    return d


def _dim2(p):
    return okk_types.dim2(*_I2.unpack(C.string_at(p, 8))) if p else None


def _padding(p):
    return okk_types.Padding(*_I4.unpack(C.string_at(p, 16))) if p else None


def _fp32_or_addr(p):
    if not p:
        return None
    raw = C.string_at(p, 8)
    if raw[0]:
        return types_part_two.fp32_or_addr_t(True, addr=_U1.unpack_from(raw, 4)[0])
    return types_part_two.fp32_or_addr_t(False, val=_F1.unpack_from(raw, 4)[0])


def _x32_or_addr(p):
    if not p:
        return None
    raw = C.string_at(p, 8)
    bits = _U1.unpack_from(raw, 4)[0]
    return types_part_two.x32_or_addr_t(bool(raw[0]), addr=bits) if raw[0] else \
        types_part_two.x32_or_addr_t(False, val=bits)


CONVERT = {"const dim4 *": _dim4, "const dim2 *": _dim2, "const Padding *": _padding,
           "const fp32_or_addr_t *": _fp32_or_addr, "const x32_or_addr_t *": _x32_or_addr}


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
        cycles = current().total_cycles - state.base
        if cycles or not state.implicit:      # an implicit section that issued nothing is no section
            state.sections.append(cycles)
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
    params = [C.c_void_p, C.c_int]
    for t, _ in arguments(args):
        params.append(SCALAR.get(t, C.c_void_p))
    if ret != "void":
        params.append(C.c_void_p)
    return C.CFUNCTYPE(C.c_int, *params)


def _make_callback(name: str, ret: str, args: str):
    fn = python_function(name)
    argv = arguments(args)
    convert = [(i, CONVERT[t]) for i, (t, _) in enumerate(argv) if t in CONVERT]
    outs = [i for i, (t, _) in enumerate(argv) if t == "dim4 *"]
    result = RESULT.get(ret)
    calls = state.calls
    source = _source
    settle, pending = pointers.settle, pointers._watches
    # Only instructions read memory: getters (one pointer per element is common) must not settle, or every
    # pointer would cost a window copy.
    reads_memory = name.startswith(("okk_bdc_", "okk_gdma_"))

    def callback(file, line, *raw):
        SOURCE_OVERRIDE.append(source(file, line))
        try:
            calls[name] += 1
            if pending and reads_memory:
                settle()
            if result is not None:
                raw, out = raw[:-1], raw[-1]
            if convert or outs:
                a = list(raw)
                for i, conv in convert:
                    a[i] = conv(a[i])
                for i in outs:
                    a[i] = okk_types.dim4() if a[i] else None
                value = fn(*a)
                for i in outs:
                    if a[i] is not None:
                        d = a[i]
                        C.memmove(raw[i], _I4.pack(d.n, d.c, d.h, d.w), 16)
            else:
                value = fn(*raw)
            if result is not None:
                result.from_address(out).value = int(value)
            return 0
        except BaseException as e:       # noqa: BLE001 - every error goes back to Python through the shim
            state.error = e
            return 1
        finally:
            SOURCE_OVERRIDE.pop()

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
    for name, ret, args in FUNCTIONS:
        if name in C_ONLY:
            continue
        proto = prototype(ret, args)
        fields.append((name, proto))
        values.append(proto(_make_callback(name, ret, args)))
    log_t = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_int, C.c_void_p)
    assert_t = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_int, C.c_void_p, C.c_void_p)
    fields += [("okk_log", log_t), ("okk_assert_fail", assert_t)]
    values += [log_t(_log), assert_t(_assert_fail)]
    cls = type("okk_callbacks_t", (C.Structure,), {"_fields_": fields})
    return cls, cls(*values), values


_table: list = []


def table():
    """The one callback table of this process (built on first use; every kernel library gets a copy)."""
    if not _table:
        _table.extend(callback_struct())
    return _table
