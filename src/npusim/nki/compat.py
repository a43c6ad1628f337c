"""Unchanged imports for published NKI kernels: ``npusim.nki.compat.install()``.

After ``install()``, ``import nki`` / ``nki.language`` / ``nki.isa`` / ``nki.typing`` give the current API
(``npusim.nki``) and ``import neuronxcc.nki`` / ``.language`` / ``.isa`` / ``.typing`` the legacy one
(``npusim.nki.legacy``), so a kernel file from AWS's repositories runs as published. ``npusim run`` calls
it. A top-level name (``nki`` or ``neuronxcc``) that a real installed package provides is left alone
unless ``install(force=True)``; a namespace package (a bare directory on sys.path, such as a repository's
``tests/nki``) is not a real package.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types

#: alias -> the npusim module it stands for (None: an empty package made here)
ALIASES = {
    "nki": "npusim.nki",
    "nki.language": "npusim.nki.language",
    "nki.isa": "npusim.nki.isa",
    "nki.typing": "npusim.nki.typing",
    "nki.isa.constants": "npusim.nki.isa_constants",
    "nki.collectives": "npusim.nki.collectives",
    "neuronxcc": None,
    "neuronxcc.nki": "npusim.nki.legacy",
    "neuronxcc.nki.language": "npusim.nki.legacy.language",
    "neuronxcc.nki.isa": "npusim.nki.legacy.isa",
    "neuronxcc.nki.typing": "npusim.nki.legacy.typing",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str | None):
        self.target = target
        self.original_spec = None

    def create_module(self, spec):
        if self.target is None:
            module = types.ModuleType(spec.name, "npusim's stand-in for the neuronxcc package")
            module.__path__ = []
            return module
        module = importlib.import_module(self.target)
        self.original_spec = module.__spec__
        return module

    def exec_module(self, module) -> None:
        if self.original_spec is not None:
            module.__spec__ = self.original_spec    # the import system set the alias's spec: restore it


class AliasFinder(importlib.abc.MetaPathFinder):
    """Resolves the aliased names whose top-level package is in ``tops``."""

    def __init__(self, tops: set[str]):
        self.tops = set(tops)

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in ALIASES or fullname.split(".")[0] not in self.tops:
            return None
        target_name = ALIASES[fullname]
        is_pkg = target_name is None or fullname in ("nki", "neuronxcc.nki", "nki.isa")   # nki.isa.constants
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(target_name), is_package=is_pkg)


_finder: AliasFinder | None = None


def real_package(top: str) -> bool:
    """A package named ``top`` is installed (a namespace directory does not count)."""
    if _finder is not None and top in _finder.tops:
        return False
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.origin not in (None, "namespace")


def install(force: bool = False) -> set[str]:
    """Add the alias finder (idempotent); returns the top-level names it serves (``{"nki", "neuronxcc"}``
    unless a real package owns one of them and ``force`` is False)."""
    global _finder
    tops = {top for top in ("nki", "neuronxcc") if force or not real_package(top)}
    if _finder is None:
        _finder = AliasFinder(tops)
        sys.meta_path.insert(0, _finder)
    else:
        _finder.tops |= tops
    for name in list(sys.modules):
        if name.split(".")[0] in tops and name in ALIASES and force:
            del sys.modules[name]           # a forced install replaces what was imported before
    return set(_finder.tops)


def uninstall() -> None:
    """Remove the finder and the aliases it imported (tests)."""
    global _finder
    if _finder is None:
        return
    sys.meta_path.remove(_finder)
    for name in list(sys.modules):
        if name in ALIASES and name.split(".")[0] in _finder.tops:
            del sys.modules[name]
    _finder = None
