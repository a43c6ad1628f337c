"""Lay out a kernel's ``param_t`` from its own C declaration, so a dict of fields becomes the bytes the
kernel reads.

A small dedicated parser, not pycparser: contest kernels declare ``typedef struct { ... }
__attribute__((packed)) param_t;`` with scalar fields (int, unsigned, long long, float, double, char,
short, bool, the okk address typedefs), comma-separated declarators and fixed-size arrays. That is all this
reads; anything else (nested structs, pointers, macros in array sizes) is a clear ``ParamError``. Without
``packed`` the fields get C's natural alignment (x86-64 System V).
"""
from __future__ import annotations

import ctypes
import re

from ...core.errors import NpuSimError

SCALARS = {
    "char": ctypes.c_byte, "signed char": ctypes.c_byte, "unsigned char": ctypes.c_ubyte,
    "short": ctypes.c_short, "short int": ctypes.c_short, "signed short": ctypes.c_short,
    "unsigned short": ctypes.c_ushort, "unsigned short int": ctypes.c_ushort,
    "int": ctypes.c_int, "signed": ctypes.c_int, "signed int": ctypes.c_int,
    "unsigned": ctypes.c_uint, "unsigned int": ctypes.c_uint,
    "long": ctypes.c_long, "long int": ctypes.c_long, "unsigned long": ctypes.c_ulong,
    "unsigned long int": ctypes.c_ulong,
    "long long": ctypes.c_longlong, "long long int": ctypes.c_longlong, "signed long long": ctypes.c_longlong,
    "unsigned long long": ctypes.c_ulonglong, "unsigned long long int": ctypes.c_ulonglong,
    "float": ctypes.c_float, "double": ctypes.c_double, "bool": ctypes.c_bool, "_Bool": ctypes.c_bool,
    "local_addr_t": ctypes.c_uint, "system_addr_t": ctypes.c_ulonglong, "global_addr_t": ctypes.c_ulonglong,
    "int8_t": ctypes.c_int8, "uint8_t": ctypes.c_uint8, "int16_t": ctypes.c_int16, "uint16_t": ctypes.c_uint16,
    "int32_t": ctypes.c_int32, "uint32_t": ctypes.c_uint32, "int64_t": ctypes.c_int64,
    "uint64_t": ctypes.c_uint64, "u32": ctypes.c_uint32, "u64": ctypes.c_uint64,
}


class ParamError(NpuSimError, ValueError):
    """The param_t declaration cannot be read, or a dict does not fit it."""


def _strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


def find_struct(source: str, type_name: str = "param_t") -> tuple[str, bool]:
    """(body, packed) of ``typedef struct [tag] { body } [attrs] type_name [attrs];``."""
    src = _strip_comments(source)
    for m in re.finditer(r"typedef\s+struct\s*(?:__attribute__\s*\(\(\s*packed\s*\)\)\s*)?\w*\s*\{", src):
        end = src.find("}", m.end())
        if end < 0:
            break
        tail = re.match(r"\}\s*((?:__attribute__\s*\(\([^;]*?\)\)\s*)*)(\w+)\s*((?:__attribute__\s*\(\([^;]*?\)\)\s*)*);",
                        src[end:])
        if tail and tail.group(2) == type_name:
            packed = "packed" in (tail.group(1) + tail.group(3) + src[m.start():m.end()])
            return src[m.end():end], packed
    raise ParamError(f"no 'typedef struct {{ ... }} {type_name};' in the kernel source")


def struct_type(source: str, type_name: str = "param_t") -> type[ctypes.Structure]:
    """A ctypes.Structure with the fields and layout of the kernel's ``type_name``."""
    body, packed = find_struct(source, type_name)
    fields = []
    for decl in filter(None, (d.strip() for d in body.split(";"))):
        decl = " ".join(decl.split())
        m = re.match(r"((?:const\s+|volatile\s+)*)((?:unsigned\s+|signed\s+)?(?:long\s+long(?:\s+int)?|"
                     r"long(?:\s+int)?|short(?:\s+int)?|\w+))\s+(.+)$", decl)
        if not m:
            raise ParamError(f"{type_name}: cannot read the field declaration '{decl}'")
        base = " ".join(m.group(2).split())
        ctype = SCALARS.get(base)
        if ctype is None:
            raise ParamError(f"{type_name}: field type '{base}' is not a scalar npusim can lay out "
                             f"(one of {', '.join(sorted(SCALARS))})")
        for d in (x.strip() for x in m.group(3).split(",")):
            am = re.fullmatch(r"(\w+)((?:\s*\[\s*\d+\s*\])*)", d)
            if not am:
                raise ParamError(f"{type_name}: cannot read the declarator '{d}' (pointers and macro sizes "
                                 "are not supported)")
            t = ctype
            for dim in reversed(re.findall(r"\d+", am.group(2))):
                t = t * int(dim)
            fields.append((am.group(1), t))
    attrs = {"_fields_": fields}
    if packed:
        attrs["_pack_"] = 1
    return type(type_name, (ctypes.Structure,), attrs)


def pack(struct: type[ctypes.Structure], values: dict) -> ctypes.Structure:
    """A struct instance from a dict of field values; every field must be given."""
    names = [n for n, _ in struct._fields_]
    unknown = sorted(set(values) - set(names))
    missing = [n for n in names if n not in values]
    if unknown or missing:
        raise ParamError(f"{struct.__name__} has the fields {', '.join(names)}"
                         + (f"; unknown: {', '.join(unknown)}" if unknown else "")
                         + (f"; missing: {', '.join(missing)}" if missing else ""))
    out = struct()
    for name, t in struct._fields_:
        v = values[name]
        try:
            if issubclass(t, ctypes.Array):
                getattr(out, name)[:] = list(v)
            elif t in (ctypes.c_float, ctypes.c_double):
                setattr(out, name, float(v))
            elif isinstance(v, (bool, float)) or not hasattr(v, "__index__"):   # never truncated
                raise TypeError(f"an integer field takes an int, not {type(v).__name__}")
            else:
                setattr(out, name, int(v))
        except (TypeError, ValueError, OverflowError) as e:
            raise ParamError(f"{struct.__name__}.{name}: cannot store {v!r} ({e})") from None
    return out
