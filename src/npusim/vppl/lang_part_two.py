"""The VPPL text additions part two needs: pointer variables and External globals.

    pX : pointer = 4096,          // a pointer variable holding a data-memory address
    External pA : pointer,        // a global the host binds: run_with(..., externals={"pA": ptr})
    External n : integer;
    use_image(pImg, A)            // (part one) pImg points at image buffer A, step = its width

Pointer arithmetic is scalar arithmetic (``pX = pX + 64;`` keeps the pointer's memory and step).
byName arguments: in text, procedure parameters (procedures.py); in Python, ``vppl.ByName(var)``.
use_image() binds part one's immutable ``vppl.Pointer`` (no arithmetic on it
in text; get_array takes x and y)."""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from .args import literal
from .pointer import Pointer
from .pointers import ByName, PointerVariable
from .vector import Integer, Vector


def _c_pointer_decl(self, t):
    name_tok = t.children[0]
    init = t.children[2] if len(t.children) > 2 else None
    name = str(name_tok)
    f = self._scalar(init) if init is not None else (lambda env: 0)

    def decl(env):
        self._fresh(env, name)
        env[name] = PointerVariable(f(env), name=name)
    self.steps.append((*self._pos(name_tok), decl))


class DmBlock:
    """A host binding for an External pointer: a fresh zero-filled DM block of ``nbytes`` (an output
    area; ``npusim vppl --extern pY=zeros:32``)."""

    def __init__(self, nbytes: int):
        self.nbytes = int(nbytes)

    def __repr__(self) -> str:
        return f"DmBlock({self.nbytes})"


def _bind_array(name: str, kind: str, vtype, a: np.ndarray):
    """A numpy array bound to an External (``npusim vppl --extern NAME=FILE.npy``): a pointer gets a
    fresh 32-byte aligned DM block holding the array's bytes (its dtype, C order), as the loader places
    data; an integer a one-element integer array; a vector its elements (cast checked by the core)."""
    if kind == "pointer_type":
        if a.dtype.kind not in "iub" and a.dtype.kind != "f":
            raise ConstraintError("External", name, "a pointer's data is a numeric array", str(a.dtype))
        from .pointers import dm_put
        return dm_put(a, name)
    if kind == "integer_type":
        if a.size == 1 and a.dtype.kind in "iu":
            return Integer(int(a.reshape(-1)[0]), name)
        raise ConstraintError("External", name, "an integer is bound to a one-element integer array", a.shape)
    tname, length = str(vtype.children[0]), literal(str(vtype.children[1]))
    if a.size != length:
        raise ConstraintError("External", name, f"the array has the vector's {length} elements", a.size)
    return Vector(tname, length, a.reshape(-1), name=name)


def _bind(name: str, vtype, value):
    kind = vtype.data
    while isinstance(value, ByName):
        value = value.var
    if isinstance(value, np.ndarray):
        return _bind_array(name, kind, vtype, value)
    if isinstance(value, np.integer):
        value = int(value)
    if kind == "pointer_type" and isinstance(value, DmBlock):
        from .pointers import dm_put
        return dm_put(np.zeros(max(value.nbytes, 1), np.uint8), name)
    if kind == "pointer_type":
        if isinstance(value, PointerVariable):
            return value                                   # shared with the host
        if isinstance(value, Pointer):                     # an address in a memory: a variable holding it
            return PointerVariable(value.address, value.step, name, space=value.memory)
        from .machine import ImageBuffer
        if isinstance(value, ImageBuffer):
            return PointerVariable(0, value.step, name, space=value.memory)
        if isinstance(value, (int, Integer)) and not isinstance(value, bool):
            return PointerVariable(int(value), name=name)
    elif kind == "integer_type":
        if isinstance(value, Integer):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            return Integer(value, name)
    else:
        tname, length = str(vtype.children[0]), literal(str(vtype.children[1]))
        if isinstance(value, Vector) and value.length == length and value.etype.name.lower() == tname.lower():
            return value
    raise ConstraintError("External", name, f"the host binds a value of the declared type "
                          f"({kind.replace('_type', '')})", type(value).__name__)


def _kind_text(vtype) -> str:
    if vtype.data == "vector_type":
        return f"{vtype.children[0]}[{vtype.children[1]}]"
    return vtype.data.replace("_type", "")


def _c_external_decl(self, t):
    name_tok, vtype = t.children[0], t.children[1]
    name = str(name_tok)
    self.__dict__.setdefault("externals", {})[name] = _kind_text(vtype)      # for the CLI's usage message

    def decl(env):
        from .machine import machine
        ext = getattr(machine(), "externals", {})
        if name not in ext:
            raise ConstraintError("External", name, "an External global is bound by the host: "
                                  "run_with(..., externals={name: value}) in Python, or "
                                  f"`npusim vppl FILE --extern {name}=FILE.npy|INT|zeros:NBYTES` "
                                  "(or --externs FILE.npz)", name)
        self._fresh(env, name)
        env[name] = _bind(name, vtype, ext[name])
    self.steps.append((*self._pos(name_tok), decl))


def install() -> None:
    from .interpreter import Program
    Program._c_pointer_decl = _c_pointer_decl
    Program._c_external_decl = _c_external_decl


def run_with(source: str, machine=None, images: dict | None = None, externals: dict | None = None,
             mode: str = "gen2", filename: str = "<vppl>") -> dict:
    """Run VPPL text on ``machine`` (a fresh one if None) whose data memory the host has filled; bind
    ``externals`` (name -> Pointer / int / Integer / Vector) for the text's External declarations.
    Returns the text's variables as ``vppl.run`` does (pointers as their addresses)."""
    from .interpreter import Program, result
    from .machine import Machine
    m = machine or Machine(mode)
    m.externals = dict(externals or {})
    env = Program(source, filename).run(m, images)
    return result(env)
