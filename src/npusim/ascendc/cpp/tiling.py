"""Tiling data: the BEGIN_TILING_DATA_DEF structs of a tiling header, as ctypes Structures.

ctypes lays a Structure out as the C compiler does (natural alignment), and the library's
``npusim_tiling_size()`` (emitted by REGISTER_TILING_DATA_CLASS) must agree with it, so a dict from Python
is packed into exactly the bytes ``GET_TILING_DATA`` copies.
"""
from __future__ import annotations

import ctypes
import re

from ...core.errors import ConstraintError

C_TYPES = {"uint8_t": ctypes.c_uint8, "int8_t": ctypes.c_int8, "uint16_t": ctypes.c_uint16,
           "int16_t": ctypes.c_int16, "uint32_t": ctypes.c_uint32, "int32_t": ctypes.c_int32,
           "uint64_t": ctypes.c_uint64, "int64_t": ctypes.c_int64, "float": ctypes.c_float,
           "double": ctypes.c_double, "bool": ctypes.c_bool, "int": ctypes.c_int,
           "unsigned int": ctypes.c_uint, "size_t": ctypes.c_size_t}

#: Vendor tiling structs an op's tiling data may embed (include/npusim_vendor_tiling.h has the same fields).
VENDOR_STRUCTS = {
    "SoftMaxTiling": type("SoftMaxTiling", (ctypes.Structure,), {"_fields_": [(n, ctypes.c_uint32) for n in (
        "srcM", "srcK", "srcSize", "outMaxM", "outMaxK", "outMaxSize", "splitM", "splitK", "splitSize", "reduceM",
        "reduceK", "reduceSize", "rangeM", "tailM", "tailSplitSize", "tailReduceSize")]}),
}

_STRUCT = re.compile(r"BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)(.*?)END_TILING_DATA_DEF", re.S)
_FIELD = re.compile(r"TILING_DATA_FIELD_DEF(_ARR|_STRUCT)?\s*\(([^)]*)\)")
_REGISTER = re.compile(r"REGISTER_TILING_DATA_CLASS\s*\(\s*\w+\s*,\s*(\w+)\s*\)")


def parse(text: str):
    """The registered tiling struct of a header's text as a ctypes Structure class (None if it has none)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    structs: dict[str, type] = {}
    for m in _STRUCT.finditer(text):
        fields = []
        for f in _FIELD.finditer(m.group(2)):
            kind, parts = f.group(1), [p.strip() for p in f.group(2).split(",")]
            if kind == "_ARR":
                t, n, name = parts
                fields.append((name, _ctype(t, structs) * int(n, 0)))
            else:
                t, name = parts
                fields.append((name, _ctype(t, structs)))
        structs[m.group(1)] = type(m.group(1), (ctypes.Structure,), {"_fields_": fields})
    reg = _REGISTER.search(text)
    if reg is None:
        return None
    return structs.get(reg.group(1))


def _ctype(t: str, structs):
    if t in C_TYPES:
        return C_TYPES[t]
    if t in structs:
        return structs[t]
    if t in VENDOR_STRUCTS:
        return VENDOR_STRUCTS[t]
    raise ConstraintError("TILING_DATA_FIELD_DEF", "type", f"one of {', '.join(C_TYPES)} or an earlier "
                          "tiling struct", t)


def pack(cls, values: dict) -> bytes:
    """A dict (nested dicts for struct fields, lists for arrays) -> the struct's bytes."""
    return bytes(_fill(cls, values))


def _fill(cls, values):
    names = [f[0] for f in cls._fields_]
    unknown = sorted(set(values) - set(names))
    missing = [n for n in names if n not in values]
    if unknown:
        raise ConstraintError("tiling", unknown[0], f"a field of {cls.__name__} ({', '.join(names)})", unknown)
    if missing:
        raise ConstraintError("tiling", missing[0], f"every field of {cls.__name__} is given", missing)
    obj = cls()
    for name, ftype in cls._fields_:
        v = values[name]
        if isinstance(ftype, type) and issubclass(ftype, ctypes.Structure):
            setattr(obj, name, _fill(ftype, v))
        elif isinstance(ftype, type) and issubclass(ftype, ctypes.Array):
            arr = getattr(obj, name)
            for i, x in enumerate(v):
                arr[i] = x
        else:
            setattr(obj, name, v)
    return obj
