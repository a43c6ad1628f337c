"""Argument checks every front end's boundary layer (``<target>/args.py``) builds on."""
from __future__ import annotations

import numpy as np


def is_int(v) -> bool:
    """A real integer: Python or numpy ints, never a bool (``True`` is an int to Python, not to a kernel)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
