"""Broadcast<T, dim, axis>(dst, src, dstShape, srcShape[, sharedTmpBuffer]) (BroadCast is the same API).

Vendor page Broadcast.md (asc-devkit 高阶API/张量变换): dim 1 or 2, axis 0 or 1; [m, 1] -> [m, k] (axis 1) or
[1, k] -> [m, k] (axis 0); dim 1: [1] -> [k]. Rules: with dim 2 and axis 0, srcShape[1] is a multiple of
32 bytes; on Atlas inference AI Core with dim 2 and axis 1, srcShape[0] is too. Types int8_t, uint8_t, half,
float (A2/A3, 310P AI Core). The temporary buffer's size is not checked (the page gives no formula; npusim
needs none) [A]. Cost: the page's steps (Brcb, then Copy of the blocks) as two one-source instructions over
the destination [A].
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError, UnsupportedError
from . import cost
from . import dtypes as T
from . import args as A
from .adv_common import check_tensors, no_overlap, ub_view
from .context import current
from .template import template

_ARCH = (2201, 2002)


@template("T", "dim", "axis", "isReuseSource")
def Broadcast(dstLocal, srcLocal, dstShape, srcShape, sharedTmpBuffer=None, *, T=None, dim=None, axis=None,
              isReuseSource=False) -> None:
    api = "Broadcast"
    ctx = current()
    if ctx.soc.arch not in _ARCH:
        raise UnsupportedError(api, f"{api} on {ctx.soc.name}", "A2/A3 and Atlas inference AI Core only")
    check_tensors(api, ctx, (_T.int8_t, _T.uint8_t, _T.half, _T.float), dstLocal=dstLocal, srcLocal=srcLocal)
    if dstLocal.dtype is not srcLocal.dtype:
        raise ConstraintError(api, "srcLocal", "src has dst's T", srcLocal.dtype)
    dshape, sshape = list(A.shape(api, "dstShape", dstShape)), list(A.shape(api, "srcShape", srcShape))
    dim = len(dshape) if dim is None else A.as_int(api, "dim", dim)
    if dim not in (1, 2) or len(dshape) != dim or len(sshape) != dim:
        raise ConstraintError(api, "dim", "1 or 2, the length of dstShape and srcShape", (dim, dshape, sshape))
    if axis is None:
        axis = next((i for i in range(dim) if sshape[i] == 1 and dshape[i] != 1), dim - 1)
    axis = int(axis)
    if axis not in (0, 1) or axis >= dim:
        raise ConstraintError(api, "axis", f"0 or 1, below dim = {dim}", axis)
    for i in range(dim):
        want = 1 if i == axis else dshape[i]
        if sshape[i] != want:
            raise ConstraintError(api, "srcShape", f"srcShape[{i}] == {want} (broadcast along axis {axis})", sshape)
    s = srcLocal.dtype.itemsize
    if dim == 2 and axis == 0 and (sshape[1] * s) % 32:
        raise ConstraintError(api, "srcShape", "srcShape[1] * sizeof(T) is a multiple of 32 bytes when axis = 0",
                              sshape[1])
    if dim == 2 and axis == 1 and ctx.soc.arch == 2002 and (sshape[0] * s) % 32:
        raise ConstraintError(api, "srcShape", "srcShape[0] * sizeof(T) is a multiple of 32 bytes on "
                              f"{ctx.soc.name} when axis = 1", sshape[0])
    n_src, n_dst = int(np.prod(sshape)), int(np.prod(dshape))
    if n_src > srcLocal.size or n_dst > dstLocal.size:
        raise ConstraintError(api, "dstShape", f"the shapes fit the tensors ({srcLocal.size}, {dstLocal.size})",
                              (sshape, dshape))
    no_overlap(api, dstLocal, srcLocal, "dstLocal")
    sv = ub_view(srcLocal, (n_src,), None, api)
    dv = ub_view(dstLocal, (n_dst,), None, api)
    out = np.broadcast_to(sv.read(api).reshape(sshape), dshape).reshape(-1)
    dv.write(out)
    r = max(1, -(-n_dst * s // 256))
    ctx.place("PIPE_V", api, 2 * cost.vector_cycles("one", r), reads=[sv.footprint], writes=[dv.footprint],
              nbytes=(n_src + n_dst) * s, elements=n_dst)


_T = T
BroadCast = Broadcast
