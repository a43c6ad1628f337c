"""Argument normalisation at the VPPL Python boundary: lengths, element types, scalars, names, modes.

Every value a constructor or helper takes becomes a plain Python value of the documented kind, or a
ConstraintError naming the API, the parameter, the rule and the value (docs/vppl.md, "Argument rules"):
an integer parameter takes an ``int`` or numpy integer, never a bool, float, None or anything else.
"""
from __future__ import annotations

from ..core.args import is_int  # noqa: F401  (re-exported: callers use args.is_int)
from ..core.errors import ConstraintError
from . import spec


def integer(api: str, param: str, v, lo: int | None = None, hi: int | None = None, rule: str | None = None) -> int:
    if not is_int(v) or (lo is not None and v < lo) or (hi is not None and v > hi):
        span = f" in [{lo if lo is not None else '-inf'}, {hi if hi is not None else 'inf'}]"
        raise ConstraintError(api, param, rule or f"an integer{span if (lo, hi) != (None, None) else ''} "
                              "(not a bool, float or None)", v)
    return int(v)


def vector_length(api: str, v) -> int:
    return integer(api, "length", v, 1, spec.MAX_VECTOR_ELEMENTS,
                   f"a vector has 1 to {spec.MAX_VECTOR_ELEMENTS} elements (npusim's limit)")


def name(api: str, v, default: str | None = None) -> str | None:
    if v is None:
        return default
    if not isinstance(v, str):
        raise ConstraintError(api, "name", "a name is a str", v)
    return v


def literal(text: str) -> int:
    """A number literal of VPPL text (decimal, or 0x hex) -> int; leading zeros are decimal."""
    digits = text[2:] if text[:2] in ("0x", "0X") else text
    if len(digits) > spec.MAX_LITERAL_DIGITS:
        raise ConstraintError("number", "literal", f"a number literal has at most {spec.MAX_LITERAL_DIGITS} "
                              "digits (npusim's limit)", text[:20] + "...")
    return int(digits, 16) if digits is not text else int(text, 10)
