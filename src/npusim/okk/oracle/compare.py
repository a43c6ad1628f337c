"""Compare a C-model Result with an npusim Result: bytes of every read, then Sophgo's schedule."""

from __future__ import annotations

import numpy as np

from .cmodel import Result


def schedule(r: Result) -> list[tuple]:
    """Every hardware instruction as (engine, engine-local id, mnemonic, start cycle, cycles).

    Ids count per engine from okk_initialize, as Sophgo's bd_id/gdma_id do, so the lists of both
    sides line up instruction by instruction even inside parallel regions (where the C-model only
    reports the region's instructions at okk_parallel_end)."""
    out = []
    for c in r.calls:
        for i in c.instructions:
            out.append((i.engine, i.bd_id if i.engine == "BD" else i.gdma_id, i.name, i.start, i.cycles))
    return sorted(out, key=lambda t: (t[3], t[0], t[1]))


def first_byte_diff(a: bytes, b: bytes, dtype=np.float32) -> str:
    x, y = np.frombuffer(a, np.uint8), np.frombuffer(b, np.uint8)
    if len(x) != len(y):
        return f"length {len(x)} != {len(y)}"
    bad = np.flatnonzero(x != y)
    es = np.dtype(dtype).itemsize
    if len(x) % es:
        return f"{len(bad)} bytes differ, first at byte {bad[0]}"
    xe, ye = x.view(dtype), y.view(dtype)
    idx = np.unique(bad // es)
    k = idx[0]
    bits = {4: np.uint32, 2: np.uint16, 1: np.uint8}[es]
    return (f"{len(idx)} of {len(xe)} elements differ; first at element {k}: cmodel {xe[k]!r} "
            f"(0x{int(xe.view(bits)[k]):x}) vs npusim {ye[k]!r} (0x{int(ye.view(bits)[k]):x})")


def diff(ref: Result, got: Result, labels=None, cycles: bool = True) -> list[str]:
    """Human-readable differences (empty when identical)."""
    problems = []
    if ref.error:
        problems.append(f"C-model aborted: {ref.error[:400]}")
        return problems
    if len(ref.reads) != len(got.reads):
        problems.append(f"{len(ref.reads)} reads vs {len(got.reads)}")
    for k, (a, b) in enumerate(zip(ref.reads, got.reads)):
        if a != b:
            label = labels[k] if labels else f"read {k}"
            problems.append(f"{label}: {first_byte_diff(a, b)}")
    if cycles:
        sa, sb = schedule(ref), schedule(got)
        if sa != sb:
            for k, (x, y) in enumerate(zip(sa, sb)):
                if x != y:
                    problems.append(f"instruction {k}: cmodel {x} vs npusim {y}")
                    break
            else:
                problems.append(f"{len(sa)} instructions vs {len(sb)}")
        if ref.totals != got.totals:
            problems.append(f"total cycles: cmodel {ref.totals} vs npusim {got.totals}")
    return problems
