"""Every error npusim raises on behalf of a kernel author.

A kernel mistake must read like a compiler diagnostic: which API, which parameter, which documented rule,
and the value that broke it. Never a numpy traceback.
"""
from __future__ import annotations


class NpuSimError(Exception):
    """Base class of all simulator errors."""


class ConstraintError(NpuSimError, ValueError):
    """A documented rule of a vendor API was broken by a call's argument."""

    def __init__(self, api: str, param: str, rule: str, value: object):
        self.api, self.param, self.rule, self.value = api, param, rule, value
        super().__init__(f"{api}: parameter '{param}' breaks the rule \"{rule}\" (got {value!r})")


class OutOfBoundsError(NpuSimError, IndexError):
    """An access reaches outside the memory (or the lane of a laned memory) it names."""

    def __init__(self, memory: str, asked: tuple[int, int], exists: tuple[int, int], what: str = "bytes",
                 api: str | None = None):
        self.memory, self.asked, self.exists, self.api = memory, asked, exists, api
        where = f"{api}: " if api else ""
        super().__init__(
            f"{where}access to {memory} {what} [{asked[0]:#x}, {asked[1]:#x}) is outside the "
            f"{what} that exist [{exists[0]:#x}, {exists[1]:#x})")


class UninitializedReadError(NpuSimError):
    """A read touched bytes that nothing ever wrote (raised in strict mode; otherwise they read as poison)."""

    def __init__(self, memory: str, first_byte: int, count: int, api: str | None = None):
        self.memory, self.first_byte, self.count, self.api = memory, first_byte, count, api
        where = f"{api}: " if api else ""
        super().__init__(f"{where}reads {count} never-written byte(s) of {memory}, "
                         f"the first at byte {first_byte:#x}")


class UninitializedReadWarning(UserWarning):
    """Poison mode's report of a never-written read: the values read as poison and the run goes on."""


class RaceError(NpuSimError):
    """Two engines touch the same bytes with nothing ordering them, and at least one of them writes."""

    def __init__(self, message: str):
        super().__init__(message)


class UnsupportedError(NpuSimError):
    """A valid vendor feature that this chip (or npusim's current mode) does not provide: a documented
    refusal with the API and the feature named, not a missing piece of code."""

    def __init__(self, api: str, feature: str, reason: str = ""):
        self.api, self.feature = api, feature
        super().__init__(f"{api}: {feature} is not supported" + (f" ({reason})" if reason else ""))
