"""Running one dot operator: the GEN.2 check, argument checks, the numpy work, one timeline event."""
from __future__ import annotations

import os
import sys

import numpy as np

from ..core.errors import ConstraintError
from .machine import _current
from .semantics import INT, OUT, VEC, WORK, OpRow
from .vector import Integer, Vector


def gen2_rule(row: OpRow) -> str:
    from .semantics import BASES
    ok = [r.name for r in BASES[row.base] if r.gen2]
    return (f"the GEN.2 instruction set has only {', '.join(ok)} (the compiler's --G2 check); "
            f"mode='extended' runs the others")


def resolve(row: OpRow, args) -> list:
    kinds = row.kinds
    if len(args) != len(kinds):
        names = ", ".join(p for p, _ in row.params) or "no arguments"
        raise ConstraintError(row.name, "arguments", f"takes {len(kinds)} argument(s): {names}", len(args))
    out = list(args)
    for i, kind in enumerate(kinds):
        a = args[i]
        if kind is VEC or kind is WORK:
            if a.__class__ is not Vector:
                raise ConstraintError(row.name, row.params[i][0], f"the {kind} is a vector variable",
                                      type(a).__name__)
            if kind is VEC and not a.valid:
                a.check_valid(row.name)
        elif kind is INT:
            if isinstance(a, Integer):
                out[i] = a._v if a.valid else a.read(row.name)
            elif isinstance(a, (int, np.integer)) and not isinstance(a, bool):
                a = int(a)
                if not -(1 << 31) <= a < (1 << 32):
                    raise ConstraintError(row.name, row.params[i][0], "a scalar is a 32-bit value "
                                          "(-2**31 <= value < 2**32)", a)
                out[i] = a
            else:
                raise ConstraintError(row.name, row.params[i][0], "a scalar value or integer variable",
                                      type(a).__name__)
        elif kind is OUT and a.__class__ is not Integer:    # other kinds (part two's pointers): the op checks
            raise ConstraintError(row.name, row.params[i][0], "an integer variable (vppl.Integer) receives "
                                  "the result", type(a).__name__)
    return out


_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # .../npusim
_SOURCE_NAMES: dict = {}        # co_filename -> basename, or None inside npusim


def _user_source(depth: int) -> str | None:
    """file:line of the caller ``depth`` frames up when it is user code (the usual case: a method call
    from a script): cheaper than letting the core walk the stack. None inside npusim (the core walks)."""
    f = sys._getframe(depth)
    fn = f.f_code.co_filename
    base = _SOURCE_NAMES.get(fn, "")
    if base == "":
        base = _SOURCE_NAMES[fn] = None if fn.startswith(_PKG_DIR) else os.path.basename(fn)
    return None if base is None else f"{base}:{f.f_lineno}"


def _fast_resolver(row: OpRow):
    """resolve() for the common signatures, with a fast accept of already-valid arguments (a valid
    vector; a Python int in the 32-bit range); anything else goes through resolve() and its errors."""
    kinds = row.kinds
    lo, hi = -(1 << 31), 1 << 32
    if kinds == (VEC,):
        def args_of(args):
            if len(args) == 1:
                a = args[0]
                if a.__class__ is Vector and a.valid:
                    return args
            return resolve(row, args)
    elif kinds == (WORK, INT):
        def args_of(args):
            if len(args) == 2:
                w, s = args
                if w.__class__ is Vector and s.__class__ is int and lo <= s < hi:
                    return args
            return resolve(row, args)
    elif kinds == (INT,):
        def args_of(args):
            if len(args) == 1:
                s = args[0]
                if s.__class__ is int and lo <= s < hi:
                    return args
            return resolve(row, args)
    else:
        def args_of(args):
            return resolve(row, args)
    return args_of


def runner(row: OpRow):
    """The instruction for one row as a closure (the Python method ``Vector.<pyname>`` itself): the GEN.2
    check, argument checks, the numpy work, one timeline event. Everything row-invariant is bound once
    here, because this runs on every instruction (the per-instruction overhead benchmark)."""
    name, impl, kinds, gen2 = row.name, row.impl, row.kinds, row.gen2
    reads_target, not_reduction, lin, costf = row.reads_target, row.group != "reduction", row.linear_cost, row.cost
    check_args = bool(kinds)
    current = _current
    args_of = _fast_resolver(row)

    def op(self, *args, source: str | None = None):
        m = current[0]
        if not gen2 and m.mode == "gen2":
            raise ConstraintError(name, "suffix", gen2_rule(row), row.suffix)
        vals = args_of(args) if args or check_args else ()
        if reads_target and not self.valid:
            self.check_valid(name, 3)              # the warning points at the user's call
        impl(m, row, self, *vals)
        if not_reduction:
            self.valid = True
        nb = self.a.nbytes
        cycles = lin[0] + lin[1] * (((nb - 1) // m.reg_bytes) + 1) if lin else costf(m, row, self, *vals)
        if source is None:
            source = _user_source(2)
        # one in-order issue stream: a SIMD instruction starts after the scalar pipe's last one
        m.timeline.place("simd", name, cycles, order="none", not_before_ns=m.scalar_engine.free_ns, nbytes=nb,
                         elements=self.length, args={"target": self.name}, source=source)
        return self

    op.__name__ = row.pyname
    op.__qualname__ = f"Vector.{row.pyname}"
    op.__doc__ = (f"VPPL ``{row.name}({', '.join(p for p, _ in row.params)})``. Target: {row.target}. "
                  f"Overflow: {row.overflow}. Side effects: {row.side_effects}. "
                  f"GEN.2: {'yes' if row.gen2 else 'no (extended mode only)'}. {row.note}")
    return op


def execute(row: OpRow, target: Vector, args, source: str | None = None) -> Vector:
    """Run ``row`` on ``target`` (the interpreter's entry; Python calls the method directly)."""
    if not isinstance(row, OpRow):
        raise ConstraintError("execute", "row", "a dot operator's row (vppl.TABLE[name])", type(row).__name__)
    if not isinstance(target, Vector):
        raise ConstraintError(row.name, "target", "the target of a dot operator is a vector variable",
                              type(target).__name__)
    if not isinstance(args, (list, tuple)):
        raise ConstraintError(row.name, "arguments", "a list of arguments", type(args).__name__)
    run = row.__dict__.get("run")
    if run is None:
        run = row.run = runner(row)
    return run(target, *args, source=source if source is not None else _user_source(2))


def _method(row: OpRow):
    row.run = runner(row)
    return row.run


def attach_methods() -> None:
    from .semantics import ROWS
    for row in ROWS:
        setattr(Vector, row.pyname, _method(row))
