"""get_array (seed 003, 画像操作向け演算子): crop a rectangle out of an image buffer into memory, as
bytes (processing type 0) or converted to F16Qq (types 8..15 = q)."""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from .pointers import ALIGN, check_access, deref, load_rows, store
from .work_area import check_allocated, leave

API = "get_array"
MAX_WIDTH_BYTES = 512     # seed: "バイト単位でそのまま転送する場合、最大512要素幅まで"
MAX_WIDTH_F16 = 160       # seed: "F16Qn形式の固定小数点数への変換を伴う場合160要素幅まで"
ROUND = 32                # seed: "横幅は32の倍数に切り上げられます"


def rounded_width(w: int) -> int:
    return -(-int(w) // ROUND) * ROUND


def get_array(m, row, t, dst, src, x, y, width, height, ptype):
    check_allocated(API, "target", t)
    if ptype != 0 and not 8 <= ptype <= 15:
        raise ConstraintError(API, "type", "processing type 0 (byte copy) or 8..15 (to F16Qq, q = type)", ptype)
    limit = MAX_WIDTH_BYTES if ptype == 0 else MAX_WIDTH_F16
    if not 1 <= width <= limit:
        raise ConstraintError(API, "width", f"1 <= width <= {limit} "
                              f"({'byte copy' if ptype == 0 else 'conversion to F16Qq'})", width)
    if height < 1:
        raise ConstraintError(API, "height", "height >= 1", height)
    if x < 0 or x % ALIGN:
        raise ConstraintError(API, "x", f"x is a non-negative multiple of {ALIGN}", x)
    if y < 0:
        raise ConstraintError(API, "y", "y >= 0", y)
    mem, base, step = deref(API, "source", src)
    if step <= 0:
        raise ConstraintError(API, "source", "the source pointer holds the image's step (row pitch): set it "
                              "with use_image() or a pointer with a step", step)
    if base % ALIGN or (height > 1 and step % ALIGN):
        raise ConstraintError(API, "source", f"every source row address is {ALIGN}-byte aligned (address "
                              f"{base:#x}, step {step})", f"{base:#x}/{step}")
    wr = rounded_width(width)
    if x + wr > step:
        raise ConstraintError(API, "width", f"x + width rounded up to {ROUND} ({x} + {wr}) stays inside the "
                              f"source row (step {step})", width)
    first = base + y * step + x
    check_access(API, "y", mem, first, (height - 1) * step + wr, ALIGN)
    win = load_rows(API, "source", mem, first, height, wr, step)            # (height, wr) uint8
    out = win if ptype == 0 else (win.astype(np.int16) << np.int16(ptype - 8))
    store(API, "destination", dst, out, align=ALIGN)
    leave(t, out[-1])
