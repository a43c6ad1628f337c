"""What the C and C++ kernel routes share (okk ``load_c``, Ascend C ``load_cpp``): the error a failed
build raises, and the folder built libraries are cached in (by content hash, never in the repository)."""
from __future__ import annotations

import os
import tempfile

from .errors import NpuSimError


class CompileError(NpuSimError):
    """The compiler rejected the kernel (``message`` holds its output), or there is no compiler."""

    def __init__(self, message: str, command: list[str] | None = None):
        self.message, self.command = message, command
        super().__init__(message)


def cache_dir(name: str) -> str:
    """``$NPUSIM_CACHE/<name>`` (default ``~/.cache/npusim/<name>``), made if missing; a per-user
    temporary folder when that is not writable."""
    root = os.environ.get("NPUSIM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "npusim")
    path = os.path.join(root, name)
    try:
        os.makedirs(path, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except OSError:
        pass
    path = os.path.join(tempfile.gettempdir(), f"npusim-{name}-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


def find_compiler() -> list[str] | None:
    """The C compiler command: ``$CC`` (may hold flags), else cc / gcc / clang on PATH; None when there is
    none (okk's ``find_compiler`` raises instead: its C kernel route needs one, a native fast path does not)."""
    import shlex
    import shutil
    env = os.environ.get("CC")
    if env:
        cmd = shlex.split(env)
        return cmd if cmd and shutil.which(cmd[0]) else None
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return [name]
    return None


def cpu_signature() -> bytes:
    """The machine and the CPU's feature flags: part of the cache key of a library built with -march=native."""
    import platform
    try:
        with open("/proc/cpuinfo", "rb") as f:
            flags = [ln for ln in f.read().splitlines() if ln.startswith(b"flags")][:1]
    except OSError:
        flags = []
    return platform.machine().encode() + b"".join(flags)


def build_library(folder: str, source: str, flag_sets: list[list[str]]) -> tuple[str | None, str]:
    """Build ``source`` into a shared library in ``cache_dir(folder)`` with the first of ``flag_sets`` that
    compiles; a library already built from the same source, compiler, flags and CPU is reused. Returns
    (its path, "") or (None, why not). Concurrent builders write to temporary names and rename, so two
    processes never load a half-written file."""
    import hashlib
    import subprocess
    cc = find_compiler()
    if cc is None:
        return None, "no C compiler (set $CC or install cc, gcc or clang)"
    with open(source, "rb") as f:
        src = f.read()
    stem = os.path.splitext(os.path.basename(source))[0]
    errors = ""
    for flags in flag_sets:
        h = hashlib.sha256(src + b"\0" + " ".join(cc + flags).encode() + b"\0" + cpu_signature())
        path = os.path.join(cache_dir(folder), f"{stem}-{h.hexdigest()[:20]}.so")
        if os.path.exists(path):
            return path, ""
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            proc = subprocess.run(cc + flags + [source, "-o", tmp], capture_output=True, text=True)
        except OSError as e:
            return None, str(e)
        if proc.returncode == 0:
            os.replace(tmp, path)
            return path, ""
        errors = proc.stderr.strip()
    return None, errors


def load_extension(name: str, path: str):
    """Import the CPython extension module built at ``path`` under ``name`` (its init function is
    ``PyInit_`` + the last part of ``name``). Raises ImportError or OSError when it cannot be loaded."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
