"""Cycle estimates per VPPL dot operator on one GEN.2 core (50 MHz, 512-bit vector registers).

TOPS publishes no per-instruction timings; these are ESTIMATES (docs/vppl.md, "Cost model"):
a SIMD instruction processes one vector register (REG_BITS) per cycle after ISSUE cycles of issue
and scalar-operand setup; multiplies take MUL_PER_REG cycles per register; a reduction adds a
log2(lanes) combining tree and a move to the scalar register file.
"""
from __future__ import annotations

import math

ISSUE = 1            # cycles to issue an instruction (estimate)
PER_REG = 1          # cycles per vector register for simple element-wise ops (estimate)
MUL_PER_REG = 2      # cycles per register for multiplies (estimate: 16x16 multiplier array pipelined)
BROADCAST = 1        # e_* ops: broadcast the scalar into the work vector (estimate)
TO_SCALAR = 1        # move a reduction's result to the scalar register file (estimate)
SORT_PER_REG = 2     # ins_sort: compare + shift-insert per register (estimate)
SCALAR_OP = 1        # one scalar statement on the scalar pipe (estimate)


def regs(nbytes: int, reg_bytes: int) -> int:
    return max(1, -(-nbytes // reg_bytes))


def linear(row) -> tuple[int, int]:
    """(fixed, per register) cycles of an element-wise row: execute() computes these inline."""
    per = MUL_PER_REG if row.base in ("mul", "e_mul", "filter_sub") else PER_REG
    extra = BROADCAST if row.base.startswith("e_") and row.base != "e_set" else 0
    return ISSUE + extra, per


def elementwise(m, row, t, *args) -> int:
    fixed, per = linear(row)
    return fixed + per * regs(t.nbytes, m.reg_bytes)


def scalar_access(m, row, t, *args) -> int:
    return ISSUE + TO_SCALAR


def sort(m, row, t, *args) -> int:
    return ISSUE + SORT_PER_REG * regs(t.nbytes, m.reg_bytes)


def reduction(m, row, t, v, *args) -> int:
    lanes = m.reg_bytes // v.a.dtype.itemsize
    per = MUL_PER_REG if row.base == "prod" else PER_REG
    return ISSUE + per * regs(v.nbytes, m.reg_bytes) + math.ceil(math.log2(max(lanes, 2))) + TO_SCALAR
