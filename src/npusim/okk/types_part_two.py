"""fp32_or_addr_t and x32_or_addr_t of okk.h: ``{bool is_addr; union {val; local_addr_t addr}}``.

Python: ``fp32_or_addr_t(is_addr=True, addr=0x1000)`` or ``fp32_or_addr_t(is_addr=False, val=1.5)``
(positional ``fp32_or_addr_t(True, 0x1000)`` works too). ``x32_or_addr_t`` takes ``val`` as an x32, a
plain int (raw bits) or a plain float (fp32 bits). ``bits`` is the raw 32-bit payload of ``val``.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError
from .args import c_bool, local_addr
from .types import union_bits


class _OrAddr:
    __slots__ = ("is_addr", "addr", "val")
    kind = ""

    def __init__(self, is_addr: bool = False, value=None, *, addr=None, val=None):
        self.is_addr = c_bool(self.kind, "is_addr", is_addr)
        if value is not None:
            if self.is_addr:
                addr = value
            else:
                val = value
        if self.is_addr:
            if addr is None:
                raise ConstraintError(self.kind, "context.addr", "an address when is_addr is true", addr)
            self.addr, self.val = local_addr(self.kind, "context.addr", addr), None
        else:
            if val is None:
                raise ConstraintError(self.kind, "context.val", "a value when is_addr is false", val)
            self.addr, self.val = None, val
            self.bits       # checks the value now, not at use

    def __repr__(self) -> str:
        return f"{self.kind}(is_addr={self.is_addr}, {'addr=%#x' % self.addr if self.is_addr else 'val=%r' % (self.val,)})"

    def __reduce__(self):
        return (type(self), (self.is_addr, self.addr if self.is_addr else self.val))


class fp32_or_addr_t(_OrAddr):
    kind = "fp32_or_addr_t"

    @property
    def bits(self) -> int:
        v = self.val
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise ConstraintError(self.kind, "context.val", "a float", v)
        with np.errstate(all="ignore"):
            return int(np.array([v], np.float32).view(np.uint32)[0])


class x32_or_addr_t(_OrAddr):
    kind = "x32_or_addr_t"

    @property
    def bits(self) -> int:
        return union_bits(self.val, 32)
