"""The configurations of a sweep: a dict of lists (their cartesian product) or a list of dicts."""
from __future__ import annotations

import itertools

from ..core.errors import ConstraintError

_AXIS_TYPES = (list, tuple, range)


def expand(space) -> list[dict]:
    """``{"tile": [64, 128], "bufs": [1, 2]}`` -> four dicts, the last key varying fastest (like nested
    loops in key order). A value that is not a list/tuple/range/array is a fixed setting of every row.
    A list (or tuple) of dicts is taken as the configurations themselves, in order."""
    if isinstance(space, dict):
        axes = {}
        for name, values in space.items():
            if not isinstance(name, str) or not name.isidentifier():
                raise ConstraintError("npusim.sweep", "space", "parameter names are Python identifiers "
                                      "(they become run's keyword arguments)", name)
            values = list(values) if isinstance(values, _AXIS_TYPES) or _is_array(values) else [values]
            if not values:
                raise ConstraintError("npusim.sweep", "space", f"parameter '{name}' has at least one value",
                                      values)
            axes[name] = values
        return [dict(zip(axes, combo)) for combo in itertools.product(*axes.values())]
    if isinstance(space, (list, tuple)):
        bad = [c for c in space if not isinstance(c, dict)]
        if bad:
            raise ConstraintError("npusim.sweep", "space", "a list of configurations holds only dicts", bad[0])
        return [dict(c) for c in space]
    raise ConstraintError("npusim.sweep", "space", "a dict of value lists or a list of dicts",
                          type(space).__name__)


def parameters(configs: list[dict]) -> list[str]:
    """Every parameter name, in first-seen order (configurations of a list may differ in their keys)."""
    names: dict = {}
    for c in configs:
        for k in c:
            names.setdefault(k, None)
    return list(names)


def _is_array(v) -> bool:
    return type(v).__name__ == "ndarray" and getattr(v, "ndim", 0) == 1
