"""Compile a kernel .cpp with g++ into a shared library, cached by content hash outside the repository.

The wrapper translation unit includes npusim's kernel_operator.h, the tiling header (if any), the user's
file verbatim, then npusim_entry.h and one ``NPUSIM_ENTRY(name)`` per ``extern "C" __global__`` kernel.
"""
from __future__ import annotations

import glob
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from ...core import native_build
from ...core.native_build import CompileError
from . import generate

INCLUDE = generate.INCLUDE
# -Bsymbolic: a kernel named sqrt or exp binds to itself, not to the libm already loaded in the process.
FLAGS = ("-std=c++17", "-shared", "-fPIC", "-O1", "-fno-builtin", "-w", "-Wl,-Bsymbolic", "-DASCENDC_CPU_DEBUG=1")
# extern "C" __global__ __aicore__ void name(   (the qualifiers in any order)
KERNEL_RE = re.compile(r'extern\s*"C"\s*((?:__\w+__\s+|inline\s+)*)void\s+(\w+)\s*\(')


def compiler() -> list[str]:
    cxx = os.environ.get("CXX") or "g++"
    argv = shlex.split(cxx)
    if shutil.which(argv[0]) is None:
        raise CompileError(f"no C++ compiler: {argv[0]!r} was not found (install g++ or set $CXX); "
                           "asc.load_cpp needs one to build the kernel")
    return argv


def cache_dir() -> str:
    return native_build.cache_dir("ascendc-cpp")


def kernel_names(text: str) -> list[str]:
    return [m.group(2) for m in KERNEL_RE.finditer(text) if "__global__" in m.group(1)]


def kernel_params(text: str, name: str) -> list[str]:
    """The parameter names of kernel ``name`` as written in the source ("x", "workspace", "tiling")."""
    for m in KERNEL_RE.finditer(text):
        if m.group(2) == name:
            end = text.index(")", m.end())
            params = [p.strip() for p in text[m.end():end].split(",") if p.strip()]
            return [re.findall(r"\w+", p)[-1] for p in params]
    return []


def _headers(dirs) -> list[str]:
    out = []
    for d in dirs:
        for ext in ("h", "hpp", "inc"):
            out.extend(sorted(glob.glob(os.path.join(d, f"*.{ext}"))))
    return out


def build(path: str, names: list[str], defines: dict, include_dirs, tiling_header: str | None) -> str:
    """The path of the compiled library (compiled now unless the cache has it)."""
    cxx = compiler()
    path = os.path.abspath(path)
    kdir = os.path.dirname(path)
    dirs = [kdir, *map(os.path.abspath, include_dirs)]
    lines = ['#include "kernel_operator.h"']
    if tiling_header:
        lines.append(f'#include "{os.path.abspath(tiling_header)}"')
    # A kernel named like a C library function (tanh, sqrt) is, for g++, that builtin: declared nothrow, so an
    # npusim error thrown through it would terminate the process. Compile each kernel under a private name;
    # NPUSIM_ENTRY exports it under its own.
    lines += [f"#define {n} npusim_kernel_{n}" for n in names]
    lines.append(f'#include "{path}"')
    lines.append('#include "npusim_entry.h"')
    lines += [f"NPUSIM_ENTRY({n})" for n in names]
    wrapper = "\n".join(lines) + "\n"
    argv = [*cxx, *FLAGS, "-I", INCLUDE]
    for d in dirs:
        argv += ["-I", d]
    for k, v in sorted(defines.items()):
        argv.append(f"-D{k}" if v is None else f"-D{k}={v}")
    h = hashlib.sha256()
    for part in (wrapper, " ".join(argv)):
        h.update(part.encode())
    npusim_dirs = [d for d, _, _ in os.walk(INCLUDE)]          # include/ and its register/, tiling/... folders
    for f in [path, *( [tiling_header] if tiling_header else []), *_headers(dirs), *_headers(sorted(npusim_dirs))]:
        with open(f, "rb") as fh:
            h.update(f.encode() + b"\0" + fh.read())
    so = os.path.join(cache_dir(), f"{os.path.splitext(os.path.basename(path))[0]}-{h.hexdigest()[:20]}.so")
    if os.path.exists(so):
        return so
    with tempfile.TemporaryDirectory(prefix="npusim-cpp-") as tmp:
        src = os.path.join(tmp, "npusim_wrapper.cpp")
        with open(src, "w") as f:
            f.write(wrapper)
        out = os.path.join(tmp, "kernel.so")
        proc = subprocess.run([*argv, "-o", out, src], capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(f"{os.path.basename(path)} does not compile:\n{proc.stderr.strip()}")
        tmp_so = so + f".{os.getpid()}.tmp"
        shutil.copyfile(out, tmp_so)
        os.replace(tmp_so, so)
    return so
