"""A function of a kernel file, named by path, that pickles as (path, name) and loads in the worker.

``npusim sweep kernel.py`` ships ``KernelFile(path, "run")`` to its workers: each worker process imports
the file once (by path, its folder on sys.path so sibling modules import) and calls the function."""
from __future__ import annotations

import importlib.util
import os
import sys
import zlib
from dataclasses import dataclass

_LOADED: dict[str, object] = {}


def load_module(path: str):
    """The module of the file at ``path``, imported once per process (not as __main__)."""
    path = os.path.abspath(path)
    if path not in _LOADED:
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)
        stem = os.path.splitext(os.path.basename(path))[0]
        name = f"npusim_sweep_kernel_{stem}_{zlib.crc32(path.encode()):08x}"   # unique per path
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {path} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module          # dataclasses and pickle look their module up here
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        _LOADED[path] = module
    return _LOADED[path]


@dataclass(frozen=True)
class KernelFile:
    path: str
    name: str = "run"

    def __call__(self, *args, **kwargs):
        return getattr(load_module(self.path), self.name)(*args, **kwargs)
