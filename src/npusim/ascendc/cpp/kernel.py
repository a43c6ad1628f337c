"""``asc.load_cpp(path)``: a compiled .cpp whose ``extern "C" __global__`` kernels run under ``asc.launch``.

    k = asc.load_cpp("add_custom.cpp")
    asc.launch(k.add_custom, 8, x, y, z, tiling={"totalLength": 16384, "tileNum": 8})

``launch`` calls a ``CppKernel`` once per block, as it calls a Python kernel, with the running core
current: the call sets the block index in the library's table and calls the C entry with the GM
arguments as pointers into npusim's GM (so a kernel may read its tiling through a plain pointer).
"""
from __future__ import annotations

import ctypes
import glob
import os

import numpy as np

from ...core.errors import ConstraintError, NpuSimError
from ..context import current
from ..tensor import GM_ADDR
from . import bridge, build, generate, tiling as tiling_mod


class _Address(int):
    """The host address of bytes npusim holds for the kernel (the packed tiling): a pointer or, for a struct
    parameter passed by value, where its bytes are."""


class CppKernel:
    def __init__(self, module: "CppModule", name: str):
        self.module, self.name = module, name
        self._run = getattr(module.lib, f"npusim_run__{name}")
        self._run.argtypes = [ctypes.POINTER(ctypes.c_int64)]
        self._run.restype = ctypes.c_int
        sig = getattr(module.lib, f"npusim_sig__{name}")
        sig.restype = ctypes.c_char_p
        self.signature = sig().decode()            # 'p' pointer, 'i' integer, 'f' float, 's' struct by value
        self.__name__ = name
        self.params = build.kernel_params(module.text, name)     # names, for the CLI and messages

    def __repr__(self) -> str:
        return f"<Ascend C kernel {self.name}({self.signature}) from {os.path.basename(self.module.path)}>"

    def __call__(self, *args, tiling=None):
        ctx = current()
        api = self.module.api
        values, keep = self._pack(args, tiling, api)
        gm_args = [a for a in args if isinstance(a, GM_ADDR)]
        run = bridge.Run(api, gm_args)
        if gm_args:
            run.base = gm_args[0].memory.data.ctypes.data
            values = [run.base + a.offset if isinstance(a, GM_ADDR) else a for a in values]
        api.failed, api.block_idx, api.block_num = 0, ctx.block_idx, ctx.block_num
        arr = (ctypes.c_int64 * max(len(values), 1))(*[bridge.to_i64(int(v)) for v in values])
        bridge._current.append(run)
        try:
            rc = self._run(arr)
        finally:
            bridge._current.pop()
            del keep
        if rc or run.error is not None:
            e = run.error or NpuSimError(f"{self.name}: the kernel threw a C++ exception (not an npusim error)")
            if run.loc and e.args and isinstance(e.args[0], str) and not e.args[0].startswith(run.loc):
                e.args = (f"{run.loc}: {e.args[0]}",) + e.args[1:]
            e.cpp_source = run.loc
            raise e

    def _pack(self, args, tiling, api):
        """The kernel's parameters in order: the given arguments, null workspaces, the tiling last."""
        sig = self.signature
        given = list(args)
        keep = []
        api.tiling_key = 0
        if tiling is not None:
            raw, key = self.module.tiling_bytes(tiling)
            api.tiling_key = int(key or 0)
            buf = ctypes.create_string_buffer(raw, max(len(raw), 1))
            keep.append(buf)
            if len(given) >= len(sig):
                raise ConstraintError(self.name, "tiling", f"the kernel has a parameter left for the tiling "
                                      f"({len(sig)} parameters, {len(given)} arguments given)", len(given))
            given += [None] * (len(sig) - len(given) - 1) + [_Address(ctypes.addressof(buf))]
        if len(given) != len(sig):
            raise ConstraintError(self.name, "arguments", f"{len(sig)} kernel arguments", len(given))
        out = []
        for i, (k, a) in enumerate(zip(sig, given)):
            if isinstance(a, (GM_ADDR, _Address)) and k in "ps" or k == "p" and isinstance(a, int):
                out.append(a)
            elif k == "i" and isinstance(a, (int, np.integer, bool)):
                out.append(int(a))
            elif k == "f" and isinstance(a, (float, int, np.floating)):
                out.append(int.from_bytes(np.float64(a).tobytes(), "little"))
            elif k in "ps" and isinstance(a, (bytes, bytearray, np.ndarray, ctypes.Structure)):
                buf = ctypes.create_string_buffer(bytes(a) if not isinstance(a, np.ndarray) else a.tobytes())
                keep.append(buf)
                out.append(ctypes.addressof(buf))
            elif a is None and k == "p":
                out.append(0)
            else:
                raise ConstraintError(self.name, f"argument {i}", f"a value for a parameter of kind {k!r} "
                                      "(p: GM pointer / numpy array, i: integer, f: float, s: struct bytes)",
                                      type(a).__name__)
        return out, keep


class CppModule:
    """A compiled kernel file; each ``extern "C" __global__`` kernel is an attribute."""

    def __init__(self, path: str, so: str, names: list[str], tiling_struct, text: str = ""):
        self.path, self.so, self.names, self.tiling_struct, self.text = path, so, names, tiling_struct, text
        self.lib = ctypes.CDLL(so)
        hf = self.lib.npusim_api_hash
        hf.restype = ctypes.c_char_p
        if hf().decode() != generate.api_hash():
            raise NpuSimError(f"{os.path.basename(so)} was built against another callback table; delete it "
                              "from the cache")
        self.api = bridge.install(self.lib)
        if tiling_struct is not None and hasattr(self.lib, "npusim_tiling_size"):
            f = self.lib.npusim_tiling_size
            f.restype = ctypes.c_uint64
            if f() != ctypes.sizeof(tiling_struct):
                raise NpuSimError(f"tiling struct {tiling_struct.__name__}: C++ says {f()} bytes, the parsed "
                                  f"field list {ctypes.sizeof(tiling_struct)}")
        self.kernels = {n: CppKernel(self, n) for n in names}

    def __getattr__(self, name):
        kernels = self.__dict__.get("kernels", {})
        if name in kernels:
            return kernels[name]
        raise AttributeError(f"{os.path.basename(self.path)} has no extern \"C\" __global__ kernel {name!r} "
                             f"(it has: {', '.join(kernels) or 'none'})")

    def tiling_bytes(self, tiling):
        """(bytes, tiling key or None) of launch's ``tiling=``: a dict (packed by the tiling struct; the
        entry ``TILING_KEY`` is the key TILING_KEY_IS tests), bytes, a numpy array or a ctypes Structure."""
        if isinstance(tiling, dict):
            values = dict(tiling)
            key = values.pop("TILING_KEY", None)
            if self.tiling_struct is None:
                raise ConstraintError("launch", "tiling", "a dict needs a BEGIN_TILING_DATA_DEF struct registered "
                                      "with REGISTER_TILING_DATA_CLASS (tiling header); pass bytes or a ctypes "
                                      "Structure otherwise", sorted(values))
            return tiling_mod.pack(self.tiling_struct, values), key
        if isinstance(tiling, np.ndarray):
            return tiling.tobytes(), None
        if isinstance(tiling, (bytes, bytearray, ctypes.Structure)):
            return bytes(tiling), None
        raise ConstraintError("launch", "tiling", "a dict, bytes, a numpy array or a ctypes Structure",
                              type(tiling).__name__)


_modules: dict = {}


def find_tiling_header(path: str, text: str) -> str | None:
    """The op's tiling header when the kernel reads GET_TILING_DATA and does not define the struct itself:
    ``<name>_tiling.h`` next to the kernel or in ``../op_host/`` (cann-ops layout)."""
    if "GET_TILING_DATA(" not in text or "REGISTER_TILING_DATA_CLASS" in text:
        return None
    d = os.path.dirname(os.path.abspath(path))
    for pattern in ("*_tiling.h", os.path.join("..", "op_host", "*_tiling.h")):
        found = sorted(glob.glob(os.path.join(d, pattern)))
        if found:
            return found[0]
    return None


def load_cpp(path: str, defines: dict | None = None, include_dirs=(), tiling_header: str | None = None) -> CppModule:
    """Compile (or take from the cache) an Ascend C kernel file; its kernels are attributes of the result.
    ``defines`` are -D macros (``{"DTYPE_X": "half", "TILING_KEY_VAR": 1}``); ``tiling_header`` defaults to
    the op's ``*_tiling.h`` (see ``find_tiling_header``)."""
    from ..args import ConstraintError
    if not isinstance(path, (str, os.PathLike)):
        raise ConstraintError("load_cpp", "path", "a path to an Ascend C .cpp file", path)
    if defines is not None and not isinstance(defines, dict):
        raise ConstraintError("load_cpp", "defines", "a dict of -D macros", defines)
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise ConstraintError("load_cpp", "path", "an existing file", path)
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    names = build.kernel_names(text)
    if not names:
        raise NpuSimError(f"{os.path.basename(path)} defines no extern \"C\" __global__ kernel")
    if tiling_header is None:
        tiling_header = find_tiling_header(path, text)
    tiling_text = text
    if tiling_header:
        with open(tiling_header, encoding="utf-8", errors="replace") as f:
            tiling_text = f.read()
    so = build.build(path, names, dict(defines or {}), tuple(include_dirs), tiling_header)
    mod = _modules.get(so)
    if mod is None:
        mod = _modules[so] = CppModule(path, so, names, tiling_mod.parse(tiling_text), text)
    return mod
