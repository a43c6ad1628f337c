"""Per-geometry plans of the ISA ops: the key parts they share.

An ISA call's rules, engine choice, cost and compute path depend on its operands' geometry (shape,
strides, dtype, buffer), the chip, the op and its flags, never on addresses or values. The first call of
a geometry runs every check; when all pass, the op keeps what they decided (a plan) under a key of
everything those checks read. A later call with an equal key runs only what can differ per call: the
per-view rules (``rules.tile``: scope, start partition, PSUM bank; cached on the view as ``checked``), the
reads (init checks, in the general path's order), the compute and the timeline event. A call that fails
a check stores nothing, so a plan is only ever hit by calls the general path accepted, and an invalid
call raises exactly the general path's error, every time.

isa_tensor_scalar.py was the first op built this way; isa.py, isa_act.py, isa_matmul.py and
isa_vector.py follow it.
"""
from __future__ import annotations

import itertools

#: (shape, strides, dtype name, in PSUM, on chip) -> a small int naming it. A key of a few ints hashes faster than
#: nested tuples (tuple hashes are not cached). Ids are never reused, so one kept on a view after the
#: table was cleared cannot collide with a new one.
_SIG_IDS: dict = {}
_next_sig = itertools.count(1).__next__


def sig(t) -> int:
    """What an op's checks, cost and compute path read of one operand (views are immutable): shape,
    strides, dtype and buffer, as an id;
    cached on the view as ``t.sig`` (callers write ``t.sig or sig(t)``)."""
    v = t.tv
    # (in_psum, on_chip) name the buffer for every rule (HBM kinds behave alike); bools hash in C, the
    # MemoryRegion enum through a Python __hash__
    s = (v.shape, v.strides, v.dtype.name, t.in_psum, t.on_chip)
    i = _SIG_IDS.get(s)
    if i is None:
        if len(_SIG_IDS) > 65536:
            _SIG_IDS.clear()
        i = _SIG_IDS[s] = _next_sig()
    t.sig = i
    return i


#: id(chip) -> chip, for every chip a stored plan's key names: a key holds ``id(run.chip)`` (chips are
#: frozen dataclasses holding a dict, so unhashable), and keeping the chip alive here means its id is never
#: reused by another chip while such a key exists.
_CHIPS: dict = {}


#: Plans per table before a table is dropped (a kernel uses a handful of geometries per op).
MAX_PLANS = 4096


def remember(table: dict, key, plan, chip):
    """Store ``plan`` under ``key`` (None: the key was unhashable, nothing is stored); the key's first
    part is ``id(chip)``."""
    if key is not None:
        if len(table) > MAX_PLANS:
            table.clear()
        _CHIPS[id(chip)] = chip
        table[key] = plan
    return plan
