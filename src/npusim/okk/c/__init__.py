"""Run unchanged OKKernel .c kernels on npusim (docs/okk.md, "Run your .c kernel").

``okk.load_c(path)`` compiles the kernel with npusim's okk.h and shim (``okk_shim.c``), whose ``okk_*``
functions call npusim.okk through one ctypes callback table; ``CKernel.run(entry, param)`` runs it.
"""
from .bridge import OkkAssertionError
from .compile import CompileError, find_compiler
from .kernel import CKernel, RunResult, load_c
from .param import ParamError

__all__ = ["load_c", "CKernel", "RunResult", "CompileError", "OkkAssertionError", "ParamError", "find_compiler"]
