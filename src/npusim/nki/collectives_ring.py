"""The ring collectives of ``nki.collectives``: ``collective_permute_implicit``,
``collective_permute_implicit_reduce`` and ``collective_permute_implicit_current_processing_rank_id``.

Each rank sends to its successor and receives from its predecessor in the ring its replica-group list
describes (list order, wrapping around) ([stub] ``nki/api/nki/collectives/__init__.py``, aws-neuron-sdk
81ce03a). Ranks are the programs of the launch (collectives.py). The stub's channel limit ("4 for replica
groups containing all devices inside a node and 2 for other") depends on the devices of the group, which
one launch does not have: npusim allows up to 4 channels, every channel on the same ring.

Cost: per channel one DMA moving the destination's bytes (``_reduce``: both sources' bytes, as
``dma_compute`` streams each source through the engines), no earlier than every rank of the group had
written its sources.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from .collectives import _group, _op, _programs, _read, _store, _tensors
from .registers import VirtualRegister

MAX_CHANNELS = 4


def _channels(api, lists, channel_ids):
    """The per-channel tensors: every outer list has one inner list of exactly one tensor per channel."""
    try:
        ids = [int(c) for c in channel_ids]
        ok = all(not isinstance(c, bool) for c in channel_ids)
    except (TypeError, ValueError):
        ids, ok = [], False
    if not ok or not ids or ids != list(range(len(ids))):
        raise ConstraintError(api, "channel_ids", "consecutive ints starting from 0", channel_ids)
    if len(ids) > MAX_CHANNELS:
        raise ConstraintError(api, "channel_ids", f"at most {MAX_CHANNELS} channels", channel_ids)
    out = []
    for param, per_channel in lists:
        if not isinstance(per_channel, (list, tuple)) or len(per_channel) != len(ids):
            raise ConstraintError(api, param, f"one list per channel ({len(ids)} channels)", per_channel)
        for c, inner in enumerate(per_channel):
            if not isinstance(inner, (list, tuple)) or len(inner) != 1:
                raise ConstraintError(api, param, "exactly one tensor per channel (coalescing is not supported)",
                                      f"channel {c}: {inner}")
        out.append([inner[0] for inner in per_channel])
    return ids, out


def _ring(api, replica_group):
    run, progs = _programs(api)
    me = progs.current_index()
    group = _group(api, replica_group, len(progs.progs), me)
    k = group.index(me)
    return run, progs, me, group, group[(k - 1) % len(group)]


def _sizes(api, got, dsts):
    for c, (v, d) in enumerate(zip(got, dsts)):
        if v.size != d.size:
            raise ConstraintError(api, "dsts_by_channel", f"channel {c}: as many elements as the predecessor's "
                                  "source", (v.shape, d.shape))


def _issue(api, run, progs, me, dsts, reads, nbytes):
    from .isa import dma_issue
    after = progs.arrived_ns(me)
    ins = None
    for d, rs, n in zip(dsts, reads, nbytes):
        ins = dma_issue(api, run, d, rs[0], list(rs), [d], nbytes=n, not_before_ns=after)
    return ins


def collective_permute_implicit(srcs_by_channel, dsts_by_channel, replica_group, channel_ids=(0,), priority=None,
                                name=None):
    """Per channel: this rank's dst receives its ring predecessor's src."""
    api = "nki.collectives.collective_permute_implicit"
    ids, (srcs, dsts) = _channels(api, [("srcs_by_channel", srcs_by_channel),
                                        ("dsts_by_channel", dsts_by_channel)], channel_ids)
    for s, d in zip(srcs, dsts):
        _tensors(api, [s], [d])
    run, progs, me, group, pred = _ring(api, replica_group)
    got = progs.exchange(f"{api}(group={group})", "permute_implicit", group, _read(srcs, api), srcs)
    _sizes(api, got[pred], dsts)
    for v, d in zip(got[pred], dsts):
        _store(d, v)
    return _issue(api, run, progs, me, dsts, [[s] for s in srcs], [d.tv.nbytes for d in dsts])


def collective_permute_implicit_reduce(srcs0_by_channel, srcs1_by_channel, dsts_by_channel, replica_group, op,
                                       channel_ids=(0,), priority=None, name=None):
    """Per channel: this rank's dst receives ``op(srcs0, srcs1)`` of its ring predecessor (fp32 math, cast
    to dst)."""
    api = "nki.collectives.collective_permute_implicit_reduce"
    fn = _op(api, op)
    ids, (s0, s1, dsts) = _channels(api, [("srcs0_by_channel", srcs0_by_channel),
                                          ("srcs1_by_channel", srcs1_by_channel),
                                          ("dsts_by_channel", dsts_by_channel)], channel_ids)
    for a, b, d in zip(s0, s1, dsts):
        _tensors(api, [a], [d])
        _tensors(api, [b], [d])
        if a.size != b.size:
            raise ConstraintError(api, "srcs1_by_channel", "as many elements as srcs0", (a.shape, b.shape))
    run, progs, me, group, pred = _ring(api, replica_group)
    mine = [fn(x.astype(np.float32), y.astype(np.float32).reshape(x.shape))
            for x, y in zip(_read(s0, api), _read(s1, api))]
    got = progs.exchange(f"{api}(group={group})", "permute_implicit_reduce", group, mine, s0 + s1)
    _sizes(api, got[pred], dsts)
    for v, d in zip(got[pred], dsts):
        _store(d, v)
    return _issue(api, run, progs, me, dsts, [[a, b] for a, b in zip(s0, s1)],
                  [a.tv.nbytes + b.tv.nbytes for a, b in zip(s0, s1)])


def collective_permute_implicit_current_processing_rank_id(iteration_id, replica_group, channel_id=0, name=None):
    """The rank whose data this rank holds at ring step ``iteration_id``: its own at 0, then its
    predecessor's, its predecessor's predecessor's ... (a register)."""
    api = "nki.collectives.collective_permute_implicit_current_processing_rank_id"
    if isinstance(iteration_id, (bool, np.bool_)) or not isinstance(iteration_id, (int, np.integer)) or \
            iteration_id < 0:
        raise ConstraintError(api, "iteration_id", "a non-negative int (the ring step)", iteration_id)
    if isinstance(channel_id, (bool, np.bool_)) or not isinstance(channel_id, (int, np.integer)) or \
            not 0 <= channel_id < MAX_CHANNELS:
        raise ConstraintError(api, "channel_id", f"an int in 0..{MAX_CHANNELS - 1}", channel_id)
    run, progs = _programs(api)
    me = progs.current_index()
    group = _group(api, replica_group, len(progs.progs), me)
    return VirtualRegister(group[(group.index(me) - int(iteration_id)) % len(group)])


__all__ = ["collective_permute_implicit", "collective_permute_implicit_reduce",
           "collective_permute_implicit_current_processing_rank_id"]
