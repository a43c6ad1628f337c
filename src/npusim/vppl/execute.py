"""Running one dot operator: the GEN.2 check, argument checks, the numpy work, one timeline event."""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from .machine import machine
from .semantics import INT, OUT, VEC, WORK, OpRow
from .vector import Integer, Vector


def gen2_rule(row: OpRow) -> str:
    from .semantics import BASES
    ok = [r.name for r in BASES[row.base] if r.gen2]
    return (f"the GEN.2 instruction set has only {', '.join(ok)} (the compiler's --G2 check); "
            f"mode='extended' runs the others")


def resolve(row: OpRow, args) -> list:
    if len(args) != len(row.params):
        names = ", ".join(p for p, _ in row.params) or "no arguments"
        raise ConstraintError(row.name, "arguments", f"takes {len(row.params)} argument(s): {names}", len(args))
    out = []
    for (pname, kind), a in zip(row.params, args):
        if kind == VEC or kind == WORK:
            if not isinstance(a, Vector):
                raise ConstraintError(row.name, pname, f"the {kind} is a vector variable", type(a).__name__)
            if kind == VEC:
                a.check_valid(row.name)
        elif kind == INT:
            if isinstance(a, Integer):
                a = a.value
            elif isinstance(a, (int, np.integer)) and not isinstance(a, bool):
                a = int(a)
            else:
                raise ConstraintError(row.name, pname, "a scalar value or integer variable", type(a).__name__)
        elif kind == OUT:
            if not isinstance(a, Integer):
                raise ConstraintError(row.name, pname, "an integer variable (vppl.Integer) receives the result",
                                      type(a).__name__)
        out.append(a)
    return out


def execute(row: OpRow, target: Vector, args, source: str | None = None) -> Vector:
    m = machine()
    if not row.gen2 and m.mode == "gen2":
        raise ConstraintError(row.name, "suffix", gen2_rule(row), row.suffix)
    vals = resolve(row, args)
    if row.reads_target:
        target.check_valid(row.name)
    row.impl(m, row, target, *vals)
    if row.group != "reduction":
        target.valid = True
    tl = m.timeline
    # one in-order issue stream: scalar and SIMD instructions do not overlap
    tl.place("simd", row.name, row.cost(m, row, target, *vals), order="none", not_before_ns=tl.now_ns,
             nbytes=target.nbytes, elements=target.length, source=source)
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
