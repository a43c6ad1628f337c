"""Python's cyclic garbage collector during a simulated launch.

A launch makes tens of thousands of objects that live until it ends (events, remembered accesses,
views); young collections promote them to the oldest generation, and CPython runs a full collection
once that generation has grown by a quarter, which scans every object of the process (the kernel
author's too: arrays, modules, earlier results) — 10-35 ms each on a 2-core machine, every few
launches. ``launch_scope`` freezes what existed before the launch (``gc.freeze``: the collector skips
it) and unfreezes it afterwards, so the collections a launch triggers scan only its own objects.
Nothing observable changes: the collector frees the same garbage, only later for pre-launch cycles.
It does nothing when the process froze objects itself (a forking server's ``gc.freeze``) or turned
the collector off, so it never undoes the caller's choice.
"""
from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def launch_scope() -> Iterator[None]:
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
