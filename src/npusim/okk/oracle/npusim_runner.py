"""Run an oracle program (see :mod:`cmodel`) on npusim.okk instead, giving the same Result shape.

Both sides then compare with :func:`compare.diff`: the bytes of every read, and the instruction
schedule (engine, mnemonic, start cycle, cycles) of every okk_initialize..okk_poll section.
"""

from __future__ import annotations

import time

import numpy as np

from .cmodel import CallRecord, Instruction, Result

_ENGINE = {"BDC": "BD", "GDMA": "GDMA"}


def _arg(kind: str, a, okk):
    if kind == "D4" and a is not None:
        return okk.dim4(*a)
    return a


def run(program, device=None) -> Result:
    """Execute ``program`` on a fresh (or the given) okk.Device; ConstraintErrors propagate."""
    from npusim import okk
    from .signatures import SIGNATURES

    dev = device if device is not None else okk.Device(global_mem_bytes=1 << 28)
    reads, calls, totals = [], [], []
    seconds = 0.0
    seq = {"BD": 0, "GDMA": 0}
    with dev:
        for step in program:
            op = step[0]
            if op == "ws":
                dev.write_system(step[1], np.frombuffer(step[2], np.uint8))
            elif op == "wl":
                dev.write_local(0, step[1], np.frombuffer(step[2], np.uint8))
            elif op == "wls":          # host upload into several NPUs at once (test set-up)
                npus = np.asarray(step[2], np.intp)
                span = len(step[3]) // max(len(npus), 1)
                lanes = dev.local.data.reshape(dev.local.lanes, dev.local.lane_bytes)
                init = dev.local.init.reshape(dev.local.lanes, dev.local.lane_bytes)
                if step[1] < 0 or step[1] + span > dev.local.lane_bytes:
                    raise ValueError("wls outside one NPU's local memory")
                lanes[npus, step[1]:step[1] + span] = np.frombuffer(step[3], np.uint8).reshape(len(npus), span)
                init[npus, step[1]:step[1] + span] = 1
            elif op == "rls":
                npus = np.asarray(step[2], np.intp)
                lanes = dev.local.data.reshape(dev.local.lanes, dev.local.lane_bytes)
                reads.append(lanes[npus, step[1]:step[1] + step[3]].tobytes())
            elif op == "rs":
                reads.append(dev.read_system(step[1], step[2], np.uint8).tobytes())
            elif op == "rl":
                reads.append(np.asarray(dev.read_local(0, step[1], step[2])).tobytes())
            elif op == "call":
                name, args = step[1], step[2]
                kinds = SIGNATURES[name]
                fn = getattr(okk, name)
                if name == "okk_initialize":
                    seq = {"BD": 0, "GDMA": 0}
                before = len(dev.events)
                t = time.perf_counter()
                fn(*[_arg(k, a, okk) for k, a in zip(kinds, args)])
                seconds += time.perf_counter() - t
                rec = CallRecord(name, (0, 0), (0, 0), dev.total_cycles)
                for ev in dev.events[before:]:
                    eng = _ENGINE[ev.engine]
                    seq[eng] += 1
                    a = ev.args or {}
                    cyc = int(a.get("cycles", ev.cycles))
                    start = int(a["start_cycle"])
                    rec.instructions.append(Instruction(
                        eng, a.get("instruction", ev.name), start, start + cyc - 1, cyc,
                        seq["BD"], seq["GDMA"]))
                if name == "okk_poll":
                    totals.append(dev.total_cycles)
                calls.append(rec)
            else:
                raise ValueError(f"unknown program step {op!r}")
    return Result(reads, calls, totals, seconds)
