"""Python's cyclic garbage collector during a simulated launch.

A launch makes tens of thousands of objects that live until it ends (events, remembered accesses,
views); young collections promote them to the oldest generation, and CPython runs a full collection
once that generation has grown by a quarter, which scans every object of the process (the kernel
author's too: arrays, modules, earlier results) — 10-35 ms each on a 2-core machine, every few
launches. ``launch_scope`` freezes what existed before the launch (``gc.freeze``: the collector skips
it) and unfreezes it afterwards, so the collections a launch triggers scan only its own objects.

It also raises the young generation's threshold for the launch. Each simulated instruction leaves a
handful of container objects that outlive it (its event and args, the timeline's access entries), so
CPython's default (700 net allocations) collected every ~130 instructions and moved each survivor
through two generations: on the Mamba port at seq_len 16, 17 young and one middle collection a
launch, ~1 us per instruction. With ``YOUNG_THRESHOLD`` the launch spends ~8 % less process time
(docs/nki.md, "Per-instruction time"); memory stays bounded, as a young collection still runs every
``YOUNG_THRESHOLD`` net allocations.

Nothing observable changes: the collector frees the same garbage, only later (a tile that dies in a
reference cycle frees its bytes at a collection, which already depends on every allocation the process
made before; the kernels measured have none). It does nothing when the process froze objects itself (a
forking server's ``gc.freeze``) or turned the collector off, never lowers a threshold the caller raised,
and puts the caller's thresholds back unless something changed them during the launch.
"""
from __future__ import annotations

import contextlib
import gc
from typing import Iterator

#: net container allocations between young-generation collections while a launch runs (CPython: 700)
YOUNG_THRESHOLD = 20000


@contextlib.contextmanager
def launch_scope() -> Iterator[None]:
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    before = gc.get_threshold()
    raise_young = 0 < before[0] < YOUNG_THRESHOLD
    gc.freeze()
    if raise_young:
        gc.set_threshold(YOUNG_THRESHOLD, *before[1:])
    try:
        yield
    finally:
        if raise_young and gc.get_threshold()[0] == YOUNG_THRESHOLD:
            gc.set_threshold(*before)
        gc.unfreeze()
