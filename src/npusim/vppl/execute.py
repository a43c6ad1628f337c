"""Running one dot operator: the GEN.2 check, argument checks, the numpy work, one timeline event."""
from __future__ import annotations

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


def execute(row: OpRow, target: Vector, args, source: str | None = None) -> Vector:
    m = _current[0]
    if not row.gen2 and m.mode == "gen2":
        raise ConstraintError(row.name, "suffix", gen2_rule(row), row.suffix)
    vals = resolve(row, args) if args or row.kinds else ()
    if row.reads_target and not target.valid:
        target.check_valid(row.name)
    row.impl(m, row, target, *vals)
    if row.group != "reduction":
        target.valid = True
    # one in-order issue stream: a SIMD instruction starts after the scalar pipe's last one
    lin = row.linear_cost
    nb = target.a.nbytes
    cycles = lin[0] + lin[1] * (((nb - 1) // m.reg_bytes) + 1) if lin else row.cost(m, row, target, *vals)
    m.timeline.place("simd", row.name, cycles, order="none",
                     not_before_ns=m.scalar_engine.free_ns, nbytes=nb, elements=target.length,
                     args={"target": target.name}, source=source)
    return target


def _method(row: OpRow):
    def op(self, *args):
        return execute(row, self, args)
    op.__name__ = row.pyname
    op.__qualname__ = f"Vector.{row.pyname}"
    op.__doc__ = (f"VPPL ``{row.name}({', '.join(p for p, _ in row.params)})``. Target: {row.target}. "
                  f"Overflow: {row.overflow}. Side effects: {row.side_effects}. "
                  f"GEN.2: {'yes' if row.gen2 else 'no (extended mode only)'}. {row.note}")
    return op


def attach_methods() -> None:
    from .semantics import ROWS
    for row in ROWS:
        setattr(Vector, row.pyname, _method(row))
