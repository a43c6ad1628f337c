"""Tiling data: the host-computed struct a kernel reads with GET_TILING_DATA.

C++ (op_host/*_tiling.h)                         Python
    BEGIN_TILING_DATA_DEF(AddCustomTilingData)       AddCustomTilingData = asc.BEGIN_TILING_DATA_DEF(
      TILING_DATA_FIELD_DEF(uint32_t, totalLength);      "AddCustomTilingData",
      TILING_DATA_FIELD_DEF(uint32_t, tileNum);          asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "totalLength"),
    END_TILING_DATA_DEF;                                 asc.TILING_DATA_FIELD_DEF(asc.uint32_t, "tileNum"))
    GET_TILING_DATA(tilingData, tiling);             tilingData = asc.GET_TILING_DATA(tiling, AddCustomTilingData)

The class is a dataclass: build it with keywords (``AddCustomTilingData(totalLength=8, tileNum=8)``) or from
a dict (``from_dict``). ``pack()`` gives the bytes of the C struct (natural alignment, little endian,
``TILING_DATA_FIELD_DEF_ARR`` arrays inline) and ``unpack(raw)`` reads them back; every field is stored
as its C type, so a value that does not fit is a ConstraintError. A kernel argument can be the instance,
a dict, or the packed bytes as a numpy uint8 array (then a GM_ADDR: GET_TILING_DATA reads the struct
from GM and needs the class).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..core.errors import ConstraintError
from .dtypes import as_dtype, asc_name
from .tensor import GM_ADDR


def _field_name(api: str, name) -> str:
    if not isinstance(name, str) or not name.isidentifier():
        raise ConstraintError(api, "name", "a C identifier", name)
    return name


def TILING_DATA_FIELD_DEF(dtype, name: str):
    from .args import dtype as _dtype_arg
    return (_field_name("TILING_DATA_FIELD_DEF", name), _dtype_arg("TILING_DATA_FIELD_DEF", "dtype", dtype), None)


def TILING_DATA_FIELD_DEF_ARR(dtype, count: int, name: str):
    from .args import as_int, dtype as _dtype_arg
    api = "TILING_DATA_FIELD_DEF_ARR"
    return (_field_name(api, name), _dtype_arg(api, "dtype", dtype), as_int(api, "count", count, 1, 2 ** 20))


def TILING_DATA_FIELD_DEF_STRUCT(struct_cls, name: str):
    """A nested tiling struct (another BEGIN_TILING_DATA_DEF class, e.g. SoftMaxTiling), laid out inline."""
    if not hasattr(struct_cls, "LAYOUT"):
        raise ConstraintError("TILING_DATA_FIELD_DEF_STRUCT", "struct", "a class made by BEGIN_TILING_DATA_DEF",
                              struct_cls)
    return (_field_name("TILING_DATA_FIELD_DEF_STRUCT", name), struct_cls, "struct")


def END_TILING_DATA_DEF(cls=None):
    """No-op (the Python definition is closed by BEGIN_TILING_DATA_DEF's call)."""
    return cls


def REGISTER_TILING_DATA_CLASS(op_type: str, cls):
    """No-op kept for line-by-line ports of op_host files."""
    return cls


def _layout(fields):
    off, out, align = 0, [], 1
    for name, d, n in fields:
        if n == "struct":
            a, size = d.ALIGN, d.SIZE
        else:
            a, size = d.itemsize, d.itemsize * (n or 1)
        off = -(-off // a) * a
        out.append((name, d, n, off))
        off += size
        align = max(align, a)
    return out, -(-off // align) * align, align


def BEGIN_TILING_DATA_DEF(class_name: str, *fields):
    """A dataclass for the tiling struct ``class_name`` with the given TILING_DATA_FIELD_DEF(_ARR) fields."""
    if not isinstance(class_name, str) or not class_name.isidentifier():
        raise ConstraintError("BEGIN_TILING_DATA_DEF", "class_name", "a C identifier", class_name)
    for f in fields:
        if not (isinstance(f, tuple) and len(f) == 3 and isinstance(f[0], str)):
            raise ConstraintError("BEGIN_TILING_DATA_DEF", "fields", "TILING_DATA_FIELD_DEF(_ARR/_STRUCT) results", f)
    layout, size, align = _layout(fields)
    names = [f[0] for f in fields]
    if len(set(names)) != len(names):
        raise ConstraintError("BEGIN_TILING_DATA_DEF", "fields", "field names are unique", names)
    dc_fields = [(n, object, dataclasses.field(default_factory=d if c == "struct" else
                                               (lambda k=c: [0] * k) if c else (lambda: 0)))
                 for n, d, c in fields]

    def _check(self):
        for name, d, n, _ in layout:
            vals = getattr(self, name)
            if n == "struct":
                if not isinstance(vals, d):
                    raise ConstraintError(class_name, name, f"a {d.__name__}", type(vals).__name__)
                continue
            vals = list(vals) if n else [vals]
            if n and len(vals) != n:
                raise ConstraintError(class_name, name, f"{n} elements", len(vals))
            for v in vals:
                if d.is_int and not (np.iinfo(d.np).min <= int(v) <= np.iinfo(d.np).max):
                    raise ConstraintError(class_name, name, f"a value of {asc_name(d)}", v)

    def pack(self) -> np.ndarray:
        _check(self)
        raw = np.zeros(size, np.uint8)
        for name, d, n, off in layout:
            if n == "struct":
                raw[off:off + d.SIZE] = getattr(self, name).pack()
                continue
            vals = np.asarray(getattr(self, name) if n else [getattr(self, name)]).astype(d.np)
            raw[off:off + vals.nbytes] = vals.view(np.uint8)
        return raw

    @classmethod
    def unpack(cls, raw) -> object:
        raw = np.asarray(raw, np.uint8).reshape(-1)
        if raw.size < size:
            raise ConstraintError(class_name, "raw", f"at least sizeof({class_name}) = {size} bytes", raw.size)
        kw = {}
        for name, d, n, off in layout:
            if n == "struct":
                kw[name] = d.unpack(raw[off:off + d.SIZE])
                continue
            vals = raw[off:off + d.itemsize * (n or 1)].view(d.np)
            kw[name] = [v.item() for v in vals] if n else vals[0].item()
        return cls(**kw)

    @classmethod
    def from_dict(cls, d: dict) -> object:
        unknown = set(d) - set(names)
        if unknown:
            raise ConstraintError(class_name, "fields", f"fields of {class_name}: {', '.join(names)}",
                                  sorted(unknown))
        return cls(**d)

    cls = dataclasses.make_dataclass(class_name, dc_fields, namespace={
        "pack": pack, "unpack": unpack, "from_dict": from_dict, "SIZE": size, "ALIGN": align, "LAYOUT": tuple(layout),
        "__post_init__": _check})
    return cls


def GET_TILING_DATA(tiling, cls=None):
    """The tiling struct a kernel was given: the instance itself, a dict (as ``cls`` or attribute access),
    or packed bytes in GM (``cls`` required)."""
    if cls is not None and isinstance(tiling, cls):
        return tiling
    if isinstance(tiling, dict):
        if cls is not None:
            return cls.from_dict(tiling)
        return _Attrs(tiling)
    if isinstance(tiling, GM_ADDR):
        if cls is None:
            raise ConstraintError("GET_TILING_DATA", "cls", "the tiling class, to read packed bytes from GM",
                                  None)
        raw = tiling.memory.data[tiling.offset:min(tiling.offset + cls.SIZE, tiling.cap)]
        return cls.unpack(raw)
    if cls is None and dataclasses.is_dataclass(tiling):
        return tiling
    raise ConstraintError("GET_TILING_DATA", "tiling", "a tiling instance, a dict, or packed bytes (GM_ADDR)",
                          type(tiling).__name__)


class _Attrs(dict):
    """A dict whose keys read as attributes (``tilingData.totalLength``)."""

    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise ConstraintError("GET_TILING_DATA", k, "a field of the tiling dict", sorted(self)) from None
