"""The variable-length collectives ``nki.collectives.all_gather_v`` and ``all_to_all_v``.

Both treat ``src`` and ``dst`` as flat element buffers (row-major) and take per-rank counts and
displacements from a ``uint32`` metadata tensor read when the call runs ([stub]
``nki/api/nki/collectives/__init__.py``, aws-neuron-sdk 81ce03a). Rows of the metadata, one column per
position in the rank list: 0 send counts, 1 send displacements, 2 receive counts (an output unless
``recv_counts_known``), 3 receive displacements (only with ``has_rdispls``). As for the other collectives
(collectives.py), ranks are the programs of the launch; the device / node topology rules of the docs
(LNC=2 devices, inter-node groups, NeuronSwitch) have no counterpart in one launch and are not checked,
except where they name a chip: both need LNC2 (trn2 / trn3), ``has_rdispls`` needs trn3.

Cost: one DMA per call moving the bytes this rank receives (collectives.py's model: ring hops and the
CC-cores are not modelled), starting no earlier than every rank of the group had written its sources.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from .collectives import _group, _programs, _tensors
from .tensor import NkiTensor

ALL_GATHER_V_RANKS = 4      # "Each rank-list must have exactly 4 ranks (intra-chip)"


def _flat(api, param, t):
    """A 1-D view of a contiguous tensor (the docs' flat element buffer)."""
    if not t.tv.is_contiguous():
        raise ConstraintError(api, param, "a contiguous tensor (a flat element buffer)", t.shape)
    return t if len(t.shape) == 1 else t.reshape((t.size,))


def _metadata(api, metadata_tensor, ranks: int, has_rdispls: bool):
    """(the tensor as a (rows, ranks) view, its values as int64)."""
    t = metadata_tensor
    if not isinstance(t, NkiTensor):
        raise ConstraintError(api, "metadata_tensor", "an NKI tensor", type(t).__name__)
    if t.tv.dtype.name != "uint32":
        raise ConstraintError(api, "metadata_tensor", "dtype uint32", t.tv.dtype)
    if t.in_psum:
        raise ConstraintError(api, "metadata_tensor", "a tensor in HBM or SBUF", t.buffer)
    allowed = (4,) if has_rdispls else (3, 4)          # row 3 "may be omitted" without has_rdispls
    shapes = [((r, ranks) if not t.on_chip else (1, r, ranks)) for r in allowed]
    if tuple(t.shape) not in shapes:
        where = "HBM: (rows, rank_list_size)" if not t.on_chip else \
            "SBUF: (1, rows, rank_list_size), the whole buffer on one partition"
        raise ConstraintError(api, "metadata_tensor", f"shape {' or '.join(map(str, shapes))} ({where}; rows "
                              f"{'4 with has_rdispls' if has_rdispls else '3'})", tuple(t.shape))
    if not (_free_contiguous(t) if t.on_chip else t.tv.is_contiguous()):
        raise ConstraintError(api, "metadata_tensor", "laid out contiguously in memory", t.shape)
    values = np.asarray(t.read(api), np.int64).reshape(-1, ranks)
    return t, values


def _free_contiguous(t) -> bool:
    from ..core.view import TensorView
    v = t.tv
    return TensorView(v.memory, v.offset, v.shape[1:], v.strides[1:], v.dtype).is_contiguous()


def _write_recv_counts(meta: NkiTensor, counts: list[int]) -> None:
    """Row 2 (``recv_counts``) of the metadata, written by the collective."""
    row = meta[2:3, :] if not meta.on_chip else meta[0:1, 2:3, :]
    row.write(np.array(counts, np.uint32).reshape(row.shape))


def _flags(api, recv_counts_known, has_rdispls):
    for p, v in (("recv_counts_known", recv_counts_known), ("has_rdispls", has_rdispls)):
        if not isinstance(v, (bool, np.bool_)):
            raise ConstraintError(api, p, "a bool", v)


def _setup(api, srcs, dsts, replica_group, recv_counts_known, has_rdispls):
    run, progs = _programs(api)
    if run.chip.nc_version < 3:
        raise ConstraintError(api, "target", "LNC=2: a NeuronCore-v3 or newer chip (trn2, trn3)", run.chip.name)
    _flags(api, recv_counts_known, has_rdispls)
    _tensors(api, srcs, dsts, hbm_only=True, single=True)
    src, dst = srcs[0], dsts[0]
    if src.tv.dtype != dst.tv.dtype:
        raise ConstraintError(api, "dsts", "the dtype of srcs (elements move as they are)",
                              f"{dst.tv.dtype} vs {src.tv.dtype}")
    me = progs.current_index()
    group = _group(api, replica_group, len(progs.progs), me)
    return run, progs, me, group, src, dst


def _chunk(api, flat, start, count, what):
    if start < 0 or count < 0 or start + count > flat.size:
        raise ConstraintError(api, "metadata_tensor", f"{what} lies inside src ({flat.size} elements)",
                              f"displacement {start}, count {count}")
    return np.array(flat[start:start + count].read(api), copy=True) if count else \
        np.empty(0, flat.tv.dtype.np)


def _land(api, flat, chunks, places, room):
    """Write each received chunk at its place; ``room`` is each chunk's space (its slot, or dst's end)."""
    for (s, data), at, end in zip(chunks, places, room):
        if at < 0 or at + data.size > end:
            raise ConstraintError(api, "metadata_tensor", f"the chunk from rank {s} fits in dst at its "
                                  f"displacement (elements {at}..{end})", f"{data.size} elements")
        if data.size:
            flat[at:at + data.size].write(data)


def _issue(api, run, progs, me, dst, src, meta, received: int, write_meta: bool):
    from .isa import dma_issue
    after = progs.arrived_ns(me)
    writes = [dst] + ([meta] if write_meta else [])
    return dma_issue(api, run, dst, src, [src, meta], writes, nbytes=received * dst.tv.dtype.itemsize,
                     not_before_ns=after)


def all_gather_v(srcs, dsts, replica_group, metadata_tensor, recv_counts_known=False, has_rdispls=False,
                 priority=None, name=None):
    """Each rank broadcasts ``src[send_displ : send_displ + send_count]`` (metadata rows 0/1, first column)
    to every rank of its group; the chunk from the rank at position s of the list lands at
    ``dst[s * slot : s * slot + count]``, ``slot = dst.size / rank_list_size``. Row 2 receives the counts."""
    api = "nki.collectives.all_gather_v"
    run, progs, me, group, src, dst = _setup(api, srcs, dsts, replica_group, recv_counts_known, has_rdispls)
    if has_rdispls:
        raise ConstraintError(api, "has_rdispls", "False (has_rdispls=True is not supported)", has_rdispls)
    if len(group) != ALL_GATHER_V_RANKS:
        raise ConstraintError(api, "replica_group", f"rank lists of exactly {ALL_GATHER_V_RANKS} ranks", group)
    n = len(group)
    meta, m = _metadata(api, metadata_tensor, n, has_rdispls)
    sflat, dflat = _flat(api, "srcs", src), _flat(api, "dsts", dst)
    if dflat.size % n:
        raise ConstraintError(api, "dsts", f"a size that splits into {n} equal slots", dflat.size)
    mine = _chunk(api, sflat, int(m[1, 0]), int(m[0, 0]), "the broadcast chunk (rows 0/1)")
    got = progs.exchange(f"{api}(group={group})", "all_gather_v", group, mine, [src, meta])
    slot = dflat.size // n
    chunks = [(r, got[r]) for r in group]
    _land(api, dflat, chunks, [k * slot for k in range(n)], [(k + 1) * slot for k in range(n)])
    if not recv_counts_known:
        _write_recv_counts(meta, [c.size for _, c in chunks])
    return _issue(api, run, progs, me, dst, src, meta, sum(c.size for _, c in chunks), not recv_counts_known)


def all_to_all_v(srcs, dsts, replica_group, metadata_tensor, recv_counts_known=False, has_rdispls=False,
                 priority=None, name=None):
    """The rank at position j sends ``src[send_displs[k] : + send_counts[k]]`` to the rank at position k;
    the chunk from position j lands at ``dst[recv_displs[j]]`` (``has_rdispls``) or at
    ``dst[j * slot]``, ``slot = dst.size / rank_list_size``. Row 2 receives the counts."""
    api = "nki.collectives.all_to_all_v"
    run, progs, me, group, src, dst = _setup(api, srcs, dsts, replica_group, recv_counts_known, has_rdispls)
    if has_rdispls and run.chip.nc_version < 4:
        raise ConstraintError(api, "has_rdispls", "False except on NeuronSwitch-based instances (trn3)",
                              run.chip.name)
    n = len(group)
    meta, m = _metadata(api, metadata_tensor, n, has_rdispls)
    sflat, dflat = _flat(api, "srcs", src), _flat(api, "dsts", dst)
    sent = [_chunk(api, sflat, int(m[1, k]), int(m[0, k]), f"the chunk for position {k} (rows 0/1)")
            for k in range(n)]
    got = progs.exchange(f"{api}(group={group})", "all_to_all_v", group, sent, [src, meta])
    k = group.index(me)
    chunks = [(r, got[r][k]) for r in group]
    if has_rdispls:
        places, room = [int(m[3, j]) for j in range(n)], [dflat.size] * n
    else:
        if dflat.size % n:
            raise ConstraintError(api, "dsts", f"a size that splits into {n} equal slots", dflat.size)
        slot = dflat.size // n
        places, room = [j * slot for j in range(n)], [(j + 1) * slot for j in range(n)]
    _land(api, dflat, chunks, places, room)
    if not recv_counts_known:
        _write_recv_counts(meta, [c.size for _, c in chunks])
    return _issue(api, run, progs, me, dst, src, meta, sum(c.size for _, c in chunks), not recv_counts_known)


__all__ = ["all_gather_v", "all_to_all_v"]
