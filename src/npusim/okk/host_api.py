"""The okk.h host-side surface outside the instruction set: memory pointers, the command-id node,
kernel registration (reference okkernel.md "Common and utility functions").

A C pointer becomes a writable numpy uint8 view of the simulated memory from the address to the end
of that memory (the NPU's local lane for ``okk_local_mem_addr``): a core ``HostWindow``, so the bytes a
kernel stores through it (item assignment, ``.view(dtype)[...] =``, ``np.copyto``, ufunc ``out=``) count
as written, exactly like ``Device.write_system``. The DTCM is not simulated (no okk instruction reads it),
so ``okk_dtcm_addr`` is a documented refusal.
"""
from __future__ import annotations

import numpy as np

from ..core.errors import ConstraintError, UnsupportedError
from ..core.host_window import host_window
from . import args, spec
from .device import current

LOCAL_ADDR_MASK = 0x7FFFFFF          # okk_local_mem_addr masks the address like the C-model
_registered: dict[str, object] = {}


def _view(api: str, mem, offset: int, limit: int) -> np.ndarray:
    if not 0 <= offset < limit:
        raise ConstraintError(api, "addr", f"an address inside {mem.name}", hex(offset + mem.base))
    return host_window(mem, offset, limit)


def okk_global_mem_addr(addr: int) -> np.ndarray:
    mem = current().system
    addr = args.system_addr("okk_global_mem_addr", "addr", addr)
    return _view("okk_global_mem_addr", mem, addr - mem.base, mem.size)


def okk_local_mem_addr(idx: int, addr: int) -> np.ndarray:
    api = "okk_local_mem_addr"
    idx = args.c_int(api, "idx", idx, 0, spec.NPU_NUM - 1, f"an NPU index in [0, {spec.NPU_NUM})")
    addr = args.u32(api, "addr", addr)
    mem = current().local
    start = idx * spec.LOCAL_MEM_SIZE + (addr & LOCAL_ADDR_MASK)
    return _view(api, mem, start, (idx + 1) * spec.LOCAL_MEM_SIZE)


def okk_l2_sram_addr(addr: int) -> np.ndarray:
    mem = current().l2sram
    addr = args.system_addr("okk_l2_sram_addr", "addr", addr)
    return _view("okk_l2_sram_addr", mem, addr - mem.base, mem.size)


def okk_dtcm_addr(addr: int):
    raise UnsupportedError("okk_dtcm_addr", "the DTCM", "npusim does not simulate the DTCM; no okk "
                           "instruction reads it")


def okk_get_id_node(node: dict | None = None) -> dict:
    """The command-id node as a dict: bd / gdma instruction counts and cycle_count (total_cycles)."""
    if node is not None and not isinstance(node, dict):
        raise ConstraintError("okk_get_id_node", "node", "a dict to fill, or None", node)
    dev = current()
    out = {"bd": dev.bdc_instructions, "gdma": dev.gdma_instructions, "cycle_count": dev.total_cycles}
    if node is not None:
        node.update(out)
    return out


def okk_set_id_node(node) -> None:
    raise UnsupportedError("okk_set_id_node", "replacing the command-id node",
                           "npusim's timeline cannot be rewound; use okk_initialize for a new section")


def okk_enable_check_id_node() -> None:
    """Accepted: the C-model polls automatically past 60000 commands; npusim has no command-id limit."""
    current().check_id_node = True


def okk_disable_check_id_node() -> None:
    current().check_id_node = False


def okk_register_kernel_func(name: str, func) -> None:
    if not isinstance(name, str) or not callable(func):
        raise ConstraintError("okk_register_kernel_func", "func", "a name and a callable", (name, func))
    _registered[name] = func


def okk_dump_registered_kernel_funcs() -> list[str]:
    """Prints the registered names (one a line, like the C-model) and returns them."""
    names = list(_registered)
    for n in names:
        print(n)
    return names


def OKKERNEL_FUNC_REGISTER(func):
    """Decorator form of the macro: registers ``func`` under its own name."""
    if not callable(func) or not isinstance(getattr(func, "__name__", None), str):
        raise ConstraintError("OKKERNEL_FUNC_REGISTER", "func", "a named function", func)
    okk_register_kernel_func(func.__name__, func)
    return func


def registered_kernel_func(name: str):
    """The function registered as ``name`` (what the C-model's dispatcher looks up)."""
    return _registered[name]


__all__ = ["okk_global_mem_addr", "okk_local_mem_addr", "okk_l2_sram_addr", "okk_dtcm_addr", "okk_get_id_node",
           "okk_set_id_node", "okk_enable_check_id_node", "okk_disable_check_id_node", "okk_register_kernel_func",
           "okk_dump_registered_kernel_funcs", "OKKERNEL_FUNC_REGISTER"]
