"""``nki.collectives`` on the programs of one launch: each program of ``kernel[n]`` is a rank.

AWS's collectives run across devices; npusim has one launch, so its ranks are the grid's programs (an
LNC2 kernel has ranks 0 and 1). Each call posts this rank's sources, waits until every rank of its
replica group made the same call (lnc.py), then writes its own destinations. The official simulator
does not implement ``nki.collectives`` (reference §3.2); the rules below are the stub's docstrings.

Cost: one DMA transfer of the destination's bytes on a DMA queue (the ring's hops and the CC-cores are
not modelled).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.errors import ConstraintError
from .alu import lookup as _alu_lookup
from .language_three import NKIObject
from .registers import VirtualRegister
from .runtime import current
from .tensor import MemoryRegion, NkiTensor

_REDUCE = {"add": np.add, "minimum": np.minimum, "maximum": np.maximum}


@dataclass
class ReplicaGroup(NKIObject):
    """Groups of ranks that take part in a collective together; the groups do not overlap."""
    groups: list = field(default_factory=list)


def _programs(api):
    run = current(api)
    progs = run.programs
    if progs is None:
        raise ConstraintError(api, "grid", "a kernel launched on several cores / ranks (kernel[n], n >= 2)",
                              "1 program")
    return run, progs


def _group(api, replica_group, n, me) -> tuple:
    groups = getattr(replica_group, "groups", replica_group)
    try:
        groups = [tuple(int(r) for r in g) for g in groups]
    except (TypeError, ValueError):
        groups = None
    flat = [r for g in groups or [] for r in g]
    if not groups or len(flat) != len(set(flat)) or any(not 0 <= r < n for r in flat):
        raise ConstraintError(api, "replica_group", f"groups of distinct ranks 0..{n - 1} that do not overlap",
                              replica_group)
    mine = [g for g in groups if me in g]
    if not mine:
        raise ConstraintError(api, "replica_group", f"a group holding this rank ({me})", groups)
    return mine[0]


def _tensors(api, srcs, dsts, hbm_only=False, single=False):
    for p, ts in (("srcs", srcs), ("dsts", dsts)):
        if not isinstance(ts, (list, tuple)) or not ts or not all(isinstance(t, NkiTensor) for t in ts):
            raise ConstraintError(api, p, "a non-empty list of NKI tensors", ts)
    if len(srcs) != len(dsts):
        raise ConstraintError(api, "dsts", "one destination per source", (len(srcs), len(dsts)))
    spaces = {t.on_chip for t in (*srcs, *dsts)}
    if len(spaces) != 1:
        raise ConstraintError(api, "srcs", "all tensors on HBM or all on SBUF (memory spaces are not mixed)",
                              [t.buffer.value for t in (*srcs, *dsts)])
    on_chip = spaces.pop()
    if on_chip and (hbm_only or any(t.in_psum for t in (*srcs, *dsts))):
        raise ConstraintError(api, "srcs", "HBM tensors" if hbm_only else "HBM or SBUF tensors",
                              [t.buffer.value for t in (*srcs, *dsts)])
    if on_chip and len(srcs) > 1:
        raise ConstraintError(api, "srcs", "one tensor: coalesced collectives (several) need HBM", len(srcs))
    if single and len(srcs) != 1:
        raise ConstraintError(api, "srcs", "exactly one tensor (coalescing is not supported)", len(srcs))
    return on_chip


def _dim(api, collective_dim, on_chip, allowed_sbuf=(0,)):
    ok = allowed_sbuf if on_chip else (0,)
    if collective_dim not in ok:
        raise ConstraintError(api, "collective_dim", f"one of {ok} for {'SBUF' if on_chip else 'HBM'} tensors",
                              collective_dim)
    return collective_dim


def _op(api, op):
    a = _alu_lookup(op)
    name = getattr(a, "name", None)
    if name not in _REDUCE:
        raise ConstraintError(api, "op", "nl.add, nl.minimum or nl.maximum", op)
    return _REDUCE[name]


def _store(dst, values):
    from .isa import store_result
    if values.dtype == dst.tv.dtype.np and dst.tv.dtype.name != "tfloat32":
        dst.write(values.reshape(dst.shape))
    else:
        store_result(dst, values.astype(np.float32).reshape(dst.shape))


def _issue(api, run, dsts, srcs):
    """One DMA per destination, on LNC2 after every rank's sources were written (lnc.Programs.exchange)."""
    from .isa import dma_issue
    progs = run.programs
    after = progs.arrived_ns(progs.current_index())
    ins = None
    for d, s in zip(dsts, srcs):
        ins = dma_issue(api, run, d, s, [s], [d], not_before_ns=after)
    return ins


def _read(ts, api):
    return [np.array(t.read(api), copy=True) for t in ts]


def rank_id(name=None) -> VirtualRegister:
    """This rank (the program's index in the grid), as a register."""
    api = "nki.collectives.rank_id"
    run, progs = _programs(api)
    return VirtualRegister(progs.current_index())


def all_gather(srcs, dsts, replica_group, collective_dim, priority=None, name=None):
    """dst = the group's srcs concatenated along ``collective_dim`` in group order."""
    api = "nki.collectives.all_gather"
    run, progs = _programs(api)
    on_chip = _tensors(api, srcs, dsts)
    dim = _dim(api, collective_dim, on_chip, (0, 1))
    me = progs.current_index()
    group = _group(api, replica_group, len(progs.progs), me)
    got = progs.exchange(f"{api}(group={group})", "all_gather", group, _read(srcs, api), srcs)
    for i, d in enumerate(dsts):
        parts = [got[r][i] for r in group]
        if any(p.shape != parts[0].shape for p in parts):
            raise ConstraintError(api, "srcs", "every rank's source has the same shape", [p.shape for p in parts])
        full = np.concatenate(parts, axis=dim)
        if full.size != d.size:
            raise ConstraintError(api, "dsts", f"the gathered shape {full.shape}", d.shape)
        _store(d, full)
    return _issue(api, run, dsts, srcs)


def all_reduce(srcs, dsts, replica_group, op, priority=None, name=None):
    """dst = op over the group's srcs (fp32 math, cast to dst)."""
    api = "nki.collectives.all_reduce"
    run, progs = _programs(api)
    fn = _op(api, op)
    _tensors(api, srcs, dsts)
    me = progs.current_index()
    group = _group(api, replica_group, len(progs.progs), me)
    got = progs.exchange(f"{api}(group={group})", "all_reduce", group, _read(srcs, api), srcs)
    for i, d in enumerate(dsts):
        parts = [got[r][i].astype(np.float32) for r in group]
        if any(p.shape != parts[0].shape for p in parts) or parts[0].size != d.size:
            raise ConstraintError(api, "dsts", "every source and the destination hold the same elements",
                                  [p.shape for p in parts] + [d.shape])
        _store(d, fn.reduce(np.stack(parts), axis=0))
    return _issue(api, run, dsts, srcs)


def reduce_scatter(srcs, dsts, replica_group, collective_dim, op, priority=None, name=None):
    """Reduce the group's srcs, split along dim 0 into one part per rank; this rank gets its part."""
    api = "nki.collectives.reduce_scatter"
    run, progs = _programs(api)
    fn = _op(api, op)
    on_chip = _tensors(api, srcs, dsts)
    _dim(api, collective_dim, on_chip)
    me = progs.current_index()
    group = _group(api, replica_group, len(progs.progs), me)
    got = progs.exchange(f"{api}(group={group})", "reduce_scatter", group, _read(srcs, api), srcs)
    k = group.index(me)
    for i, d in enumerate(dsts):
        red = fn.reduce(np.stack([got[r][i].astype(np.float32) for r in group]), axis=0)
        if red.shape[0] % len(group):
            raise ConstraintError(api, "srcs", f"dim 0 splits into {len(group)} equal parts", red.shape)
        part = np.split(red, len(group), axis=0)[k]
        if part.size != d.size:
            raise ConstraintError(api, "dsts", f"this rank's part {part.shape}", d.shape)
        _store(d, part)
    return _issue(api, run, dsts, srcs)


def all_to_all(srcs, dsts, replica_group, collective_dim, priority=None, name=None):
    """Split each src along dim 0 into one part per rank; dst = the parts the ranks sent to this rank."""
    api = "nki.collectives.all_to_all"
    run, progs = _programs(api)
    _tensors(api, srcs, dsts, hbm_only=True)
    _dim(api, collective_dim, False)
    me = progs.current_index()
    group = _group(api, replica_group, len(progs.progs), me)
    got = progs.exchange(f"{api}(group={group})", "all_to_all", group, _read(srcs, api), srcs)
    k = group.index(me)
    for i, d in enumerate(dsts):
        if got[me][i].shape[0] % len(group):
            raise ConstraintError(api, "srcs", f"dim 0 splits into {len(group)} equal parts", got[me][i].shape)
        _store(d, np.concatenate([np.split(got[r][i], len(group), axis=0)[k] for r in group], axis=0))
    return _issue(api, run, dsts, srcs)


def collective_permute(srcs, dsts, source_target_pairs, priority=None, name=None):
    """For each (source, target) pair, the target's dst receives the source's src."""
    api = "nki.collectives.collective_permute"
    run, progs = _programs(api)
    _tensors(api, srcs, dsts, hbm_only=True, single=True)
    n = len(progs.progs)
    try:
        pairs = [(int(a), int(b)) for a, b in source_target_pairs]
    except (TypeError, ValueError):
        pairs = None
    if not pairs or any(not (0 <= a < n and 0 <= b < n) for a, b in pairs) or \
            len({b for _, b in pairs}) != len(pairs):
        raise ConstraintError(api, "source_target_pairs", f"(source, target) ranks in 0..{n - 1}, each target "
                              "once", source_target_pairs)
    everyone = tuple(range(n))
    me = progs.current_index()
    got = progs.exchange(f"{api}", "collective_permute", everyone, _read(srcs, api), srcs)
    src_of = {b: a for a, b in pairs}
    if me in src_of:
        v = got[src_of[me]][0]
        if v.size != dsts[0].size:
            raise ConstraintError(api, "dsts", "the source's shape", (v.shape, dsts[0].shape))
        _store(dsts[0], v)
    return _issue(api, run, dsts, srcs)


__all__ = ["ReplicaGroup", "rank_id", "all_gather", "all_reduce", "reduce_scatter", "all_to_all",
           "collective_permute"]

# ---- the variable-length collectives (all_gather_v, all_to_all_v): see collectives_v.py ----
from .collectives_v import all_gather_v, all_to_all_v  # noqa: E402,F401
__all__ += ["all_gather_v", "all_to_all_v"]
from .collectives_ring import (collective_permute_implicit, collective_permute_implicit_reduce,  # noqa: E402,F401
                               collective_permute_implicit_current_processing_rank_id)
__all__ += ["collective_permute_implicit", "collective_permute_implicit_reduce",
            "collective_permute_implicit_current_processing_rank_id"]
