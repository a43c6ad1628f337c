"""Import the verbatim nki-library kernels under tests/nki/public/nkilib with ``import nki`` resolved to
npusim.nki (their files say ``import nki``, ``import nki.isa as nisa``, ``import nki.language as nl``).

The aliases exist only while a module is imported: the kernels keep the module objects they bound, and
sys.modules is left as it was (so a real ``nki`` package, or another alias hook, is never shadowed).
"""
from __future__ import annotations

import contextlib
import importlib
import os
import sys
import types

import npusim.nki
import npusim.nki.isa
import npusim.nki.collectives
import npusim.nki.isa_constants
import npusim.nki.language
import npusim.nki.typing

HERE = os.path.dirname(os.path.abspath(__file__))
_ALIASES = {"nki": npusim.nki, "nki.isa": npusim.nki.isa, "nki.language": npusim.nki.language,
            "nki.typing": npusim.nki.typing,
            "nki.isa.constants": npusim.nki.isa_constants, "nki.collectives": npusim.nki.collectives}


def _legacy_typing_aliases() -> dict:
    """router_topk.py still says ``import neuronxcc.nki.typing as nt`` (annotations only): while it is
    imported, that name is npusim.nki.typing, under placeholder parent modules."""
    top, mid = types.ModuleType("neuronxcc"), types.ModuleType("neuronxcc.nki")
    top.nki, mid.typing = mid, npusim.nki.typing
    return {"neuronxcc": top, "neuronxcc.nki": mid, "neuronxcc.nki.typing": npusim.nki.typing}


@contextlib.contextmanager
def nki_aliases():
    aliases = dict(_ALIASES)
    if "neuronxcc" not in sys.modules:          # never shadow a real (or another helper's) neuronxcc
        aliases.update(_legacy_typing_aliases())
    saved = {k: sys.modules.get(k) for k in aliases}
    sys.modules.update(aliases)
    added = HERE not in sys.path
    if added:
        sys.path.insert(0, HERE)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        if added:
            sys.path.remove(HERE)


def load(module: str):
    """``load("experimental.dynamic_shapes.dynamic_elementwise_add")`` -> the module (nkilib.<module>)."""
    with nki_aliases():
        return importlib.import_module("nkilib." + module)
