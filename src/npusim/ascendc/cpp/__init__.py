"""Unchanged Ascend C ``.cpp`` kernels on npusim: ``asc.load_cpp(path)`` (docs/ascendc.md, "Run your .cpp
kernel"). The header set in ``include/`` maps the Ascend C classes onto the Python module through one
callback table generated from ``api_table.py`` (``python -m npusim.ascendc.cpp.generate``)."""
from .build import CompileError
from .kernel import CppKernel, CppModule, load_cpp

__all__ = ["CompileError", "CppKernel", "CppModule", "load_cpp"]
