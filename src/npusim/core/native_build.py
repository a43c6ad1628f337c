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
