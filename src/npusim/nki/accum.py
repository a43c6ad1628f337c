"""The engines' per-partition reduction registers and ``nisa.reduce_cmd``.

ScalarE has 128 32-bit ``reduce_regs`` (activation, activation_reduce); VectorE has its own accumulator
registers (tensor_scalar_reduce, select_reduce, range_select). npusim's reading of ``reduce_cmd``
(nki.isa.activation docstring; the VectorE ops share it):

- ``idle``: the registers are untouched; ``reduce_res`` (when given) receives this instruction's reduction.
- ``reset``: the registers are set to the reduction identity; ``reduce_res`` receives them.
- ``reduce``: registers = reduce_op(registers, this reduction); ``reduce_res`` receives them.
- ``reset_reduce``: registers = this reduction; ``reduce_res`` receives them.

Registers that were never set read as the identity of the op.
"""
from __future__ import annotations

import enum

import numpy as np


class reduce_cmd(enum.Enum):
    """``nki.isa.reduce_cmd``."""
    idle = "idle"
    reset = "reset"
    reduce = "reduce"
    reset_reduce = "reset_reduce"
    load_reduce = "load_reduce"     # load ``reduce_init`` into the registers, then accumulate (exponential)


IDENTITY = {"add": 0.0, "subtract": 0.0, "multiply": 1.0, "maximum": -np.inf, "minimum": np.inf}
REDUCE_FNS = {"add": np.add, "subtract": np.add, "multiply": np.multiply, "maximum": np.maximum,
              "minimum": np.minimum}


def _regs(run, engine: str) -> dict:
    store = getattr(run, "_reduce_regs", None)
    if store is None:
        store = run._reduce_regs = {}
    return store.setdefault(engine, {})


def apply(run, engine: str, cmd: reduce_cmd, op_name: str, lanes: slice, values: np.ndarray | None
          ) -> np.ndarray:
    """Run ``cmd`` on ``engine``'s registers of partitions ``lanes``; ``values`` is this instruction's
    per-partition reduction (float32, shape (P,)). Returns what ``reduce_res`` receives."""
    regs = _regs(run, engine)
    ident = np.float32(IDENTITY[op_name])
    cur = regs.get("values")
    if cur is None:
        cur = regs["values"] = np.full(128, ident, np.float32)
    if cmd is reduce_cmd.idle:
        return values if values is not None else cur[lanes].copy()
    if cmd is reduce_cmd.reset:
        cur[lanes] = ident
    elif cmd is reduce_cmd.reduce:
        with np.errstate(all="ignore"):
            cur[lanes] = REDUCE_FNS[op_name](cur[lanes], values)
    else:
        cur[lanes] = values
    return cur[lanes].copy()


def reduce_rows(op_name: str, x: np.ndarray) -> np.ndarray:
    """Per-partition reduction over every free element, in float32. (Only ISA ops call it, inside a launch,
    whose np.errstate(all="ignore") silences FP warnings: runtime.activate, lnc's program threads.)"""
    flat = x.reshape(x.shape[0], -1)
    if op_name == "subtract":     # a running "subtract" reduction: x0 - x1 - x2 ...
        return (flat[:, 0] - flat[:, 1:].sum(axis=1, dtype=np.float32)).astype(np.float32)
    return REDUCE_FNS[op_name].reduce(flat, axis=1).astype(np.float32, copy=False)
