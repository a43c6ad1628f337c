"""``okk.load_c(path)`` -> CKernel; ``CKernel.run(entry, param)`` -> RunResult."""
from __future__ import annotations

import ctypes
import os
from collections import Counter
from dataclasses import dataclass, field

from ...core.errors import NpuSimError
from ..device import current
from . import bridge, param as param_mod, pointers
from .compile import build


@dataclass
class RunResult:
    entry: str
    sections: list[int]                     # Sophgo cycles of each okk_initialize..okk_poll section
    calls: Counter = field(default_factory=Counter)   # okk_* name -> number of calls

    @property
    def cycles(self) -> int:
        """Sophgo cycles over the whole run: the sum of every section."""
        return sum(self.sections)

    @property
    def ncalls(self) -> int:
        return sum(self.calls.values())


class CKernel:
    """A compiled kernel library. ``kernels`` lists the names OKKERNEL_FUNC_REGISTER registered."""

    def __init__(self, path: str, library: str):
        self.path, self.library = path, library
        self.lib = ctypes.CDLL(library)
        cls, callbacks, _ = bridge.table()
        size = self.lib.okk_shim_callbacks_size
        size.restype = ctypes.c_ulong
        if size() != ctypes.sizeof(cls):
            raise NpuSimError(f"{library}: the shim's callback table has {size()} bytes, ctypes expects "
                              f"{ctypes.sizeof(cls)} (regenerate with python -m npusim.okk.c.generate)")
        ctypes.memmove(ctypes.addressof(cls.in_dll(self.lib, "okk_callbacks")), ctypes.addressof(callbacks),
                       ctypes.sizeof(cls))
        ctypes.c_void_p.in_dll(self.lib, "okk_shim_shared").value = ctypes.addressof(bridge.SHARED)
        n = len(bridge.FORWARDED)
        self._calls = (ctypes.c_ulonglong * n).in_dll(self.lib, "okk_shim_calls")
        self._order = (ctypes.c_int * n).in_dll(self.lib, "okk_shim_order")
        self._ordered = ctypes.c_int.in_dll(self.lib, "okk_shim_ordered")
        self._run = self.lib.okk_shim_run
        self._run.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self._run.restype = ctypes.c_int
        with open(path, errors="replace") as f:
            self.source = f.read()
        self._param_types: dict = {}

    @property
    def kernels(self) -> dict[str, int]:
        """Registered name -> function address."""
        lib = self.lib
        lib.okk_shim_kernel_name.restype = ctypes.c_char_p
        lib.okk_shim_kernel_func.restype = ctypes.c_void_p
        return {lib.okk_shim_kernel_name(i).decode(): lib.okk_shim_kernel_func(i)
                for i in range(lib.okk_shim_kernel_count())}

    def param_type(self, type_name: str = "param_t") -> type[ctypes.Structure]:
        """The ctypes Structure of the kernel's own ``param_t`` declaration."""
        if type_name not in self._param_types:
            self._param_types[type_name] = param_mod.struct_type(self.source, type_name)
        return self._param_types[type_name]

    def _entry(self, entry: str) -> int:
        if not isinstance(entry, str) or not entry.isidentifier():
            from ...core.errors import ConstraintError
            raise ConstraintError("CKernel.run", "entry", "the name of a registered kernel", entry)
        found = self.kernels
        if entry in found:
            return found[entry]
        try:
            return ctypes.cast(getattr(self.lib, entry), ctypes.c_void_p).value
        except AttributeError:
            pass
        raise NpuSimError(f"{os.path.basename(self.path)}: no kernel '{entry}' (registered: "
                          f"{', '.join(found) or 'none'})")

    def _param_bytes(self, param, type_name: str):
        if param is None:
            return None
        if isinstance(param, dict):
            param = param_mod.pack(self.param_type(type_name), param)
        if isinstance(param, ctypes.Structure):
            return ctypes.create_string_buffer(bytes(param), max(1, ctypes.sizeof(param)))
        if isinstance(param, (bytes, bytearray, memoryview)):
            return ctypes.create_string_buffer(bytes(param), max(1, len(param)))
        raise param_mod.ParamError(f"param must be bytes, a ctypes.Structure or a dict of "
                                   f"{type_name} fields, not {type(param).__name__}")

    def run(self, entry: str, param=None, *, param_type: str = "param_t", log=print) -> RunResult:
        """Run kernel ``entry`` on the current device with ``param`` (bytes, ctypes.Structure, or dict)."""
        func = self._entry(entry)
        buf = self._param_bytes(param, param_type)
        st = bridge.state
        st.error = None
        st.sections = []
        st.log = log
        bridge.open_implicit_section()
        failed = self._run(func, buf)
        try:
            pointers.settle()
        finally:
            error, st.error = st.error, None
            bridge._close_section()
        if failed or error is not None:
            if error is None:
                error = NpuSimError(f"{entry}: the kernel stopped without an error")
            raise error
        return RunResult(entry, list(st.sections), self._call_counts())

    def _call_counts(self) -> Counter:
        """The shim's counts of the last run, in first-call order."""
        names, calls = bridge.FORWARDED, self._calls
        return Counter({names[i]: calls[i] for i in self._order[:self._ordered.value]})


def load_c(path, defines: dict | None = None, include_dirs=()) -> CKernel:
    """Compile ``path`` (with npusim's okk.h and shim) and load it; cached by content hash."""
    from ...core.errors import ConstraintError
    if not isinstance(path, (str, os.PathLike)):
        raise ConstraintError("load_c", "path", "a path to a .c kernel", path)
    if defines is not None and not (isinstance(defines, dict) and all(
            isinstance(k, str) and k.isidentifier() and (v is None or isinstance(v, (str, int)))
            for k, v in defines.items())):
        raise ConstraintError("load_c", "defines", "a dict of macro name -> None, int or str", defines)
    if isinstance(include_dirs, (str, bytes)) or not isinstance(include_dirs, (tuple, list)) or \
            not all(isinstance(d, (str, os.PathLike)) for d in include_dirs):
        raise ConstraintError("load_c", "include_dirs", "a list of directories", include_dirs)
    path = os.fspath(path)
    return CKernel(path, build(path, defines, include_dirs))
