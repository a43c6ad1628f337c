"""Compile a kernel .c with the shim into a shared library, cached by content hash.

Compiler: ``$CC``, else ``cc``, ``gcc`` or ``clang`` on PATH. The cache key covers the kernel source, the
shim and header, the defines, the include directories (their names, not their files) and the compiler;
libraries live in ``$NPUSIM_CACHE/okk_c`` (default ``~/.cache/npusim/okk_c``; a temporary folder when that
is not writable).
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess

from ...core import native_build
from ...core.native_build import CompileError

HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(HERE, "okk_shim.c")
# -w: a contest kernel's warnings are its author's business; but calling a function okk.h does not declare
# (e.g. a newer tpu-mlir okk_* call) is an error here, not an unresolved symbol at load time.
FLAGS = ["-std=gnu99", "-O2", "-fPIC", "-shared", "-DUSING_CMODEL", "-w", "-Werror=implicit-function-declaration"]


def find_compiler() -> list[str]:
    """The compiler command: $CC (may hold flags), else cc / gcc / clang from PATH."""
    env = os.environ.get("CC")
    if env:
        cmd = shlex.split(env)
        if shutil.which(cmd[0]):
            return cmd
        raise CompileError(f"$CC is {env!r} but {cmd[0]!r} is not an executable on PATH")
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return [name]
    raise CompileError("no C compiler found: set $CC or install cc, gcc or clang to run .c kernels "
                       "(npusim.okk's Python API works without one)")


def cache_dir() -> str:
    return native_build.cache_dir("okk_c")


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _define_flags(defines: dict) -> list[str]:
    return [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in sorted((defines or {}).items())]


def build(source_path: str, defines: dict | None = None, include_dirs=()) -> str:
    """Path of the shared library for this kernel (compiled now unless cached)."""
    source_path = os.path.abspath(source_path)
    try:
        with open(source_path, "rb") as f:
            source = f.read()
    except OSError as e:
        raise CompileError(f"cannot read {source_path}: {e.strerror}") from None
    cc = find_compiler()
    incs = [os.path.abspath(d) for d in include_dirs]
    # The kernel's own folder first (its local headers), then the caller's folders, then npusim's okk.h
    # and stand-ins: a contest tree's Sophgo okk.h in include_dirs would otherwise win over ours.
    flags = FLAGS + _define_flags(defines) + ["-I" + HERE] + ["-I" + d for d in incs]
    h = hashlib.sha256()
    for part in (source, _read(SHIM), _read(os.path.join(HERE, "okk.h")),
                 " ".join(cc + flags).encode(), source_path.encode()):
        h.update(part)
        h.update(b"\0")
    lib = os.path.join(cache_dir(), f"{os.path.splitext(os.path.basename(source_path))[0]}-{h.hexdigest()[:20]}.so")
    if os.path.exists(lib):
        return lib
    tmp = lib + f".{os.getpid()}.tmp"
    cmd = cc + flags + [source_path, SHIM, "-o", tmp, "-Wl,-z,defs", "-lm"]     # every symbol resolved now
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompileError(f"{os.path.basename(source_path)} does not compile:\n{proc.stderr.strip()}", cmd)
    os.replace(tmp, lib)
    return lib
