"""The differential route: the same .c compiled without the shim and linked, at load time, against
Sophgo's C-model (``libbackend_bm1684.so``, the C-model with its cost statistics; ``make oracle`` fetches
it). Runs in a one-shot worker process because the C-model ends the process on a failed check.

``run_on_cmodel(path, entry, param, writes, reads)`` returns the bytes read back after the kernel and
the ``API_END total_cycle`` of every okk_initialize..okk_poll section (Sophgo's cost model).
"""
from __future__ import annotations

import ctypes
import os
import pickle
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from ...core.errors import NpuSimError
from .compile import FLAGS, HERE, CompileError, _define_flags, _read, cache_dir, find_compiler

GLUE = os.path.join(HERE, "okk_cmodel_glue.c")


@dataclass
class CModelRun:
    reads: list[bytes]
    sections: list[int]
    log: str
    seconds: float = 0.0          # wall time of the kernel call inside the C-model process
    cpu_seconds: float = 0.0      # its process time (steadier than wall time on a loaded machine)

    @property
    def cycles(self) -> int:
        return sum(self.sections)


def build_for_cmodel(source_path: str, defines: dict | None = None, include_dirs=()) -> str:
    import hashlib
    source_path = os.path.abspath(source_path)
    cc = find_compiler()
    flags = FLAGS + ["-DOKK_NO_SOURCE_MACROS"] + _define_flags(defines) + ["-I" + HERE] + \
        ["-I" + os.path.abspath(d) for d in include_dirs]
    h = hashlib.sha256()
    for part in (_read(source_path), _read(GLUE), _read(os.path.join(HERE, "okk.h")),
                 " ".join(cc + flags).encode()):
        h.update(part + b"\0")
    lib = os.path.join(cache_dir(), f"cmodel-{os.path.splitext(os.path.basename(source_path))[0]}-{h.hexdigest()[:20]}.so")
    if not os.path.exists(lib):
        tmp = lib + f".{os.getpid()}.tmp"
        cmd = cc + flags + [source_path, GLUE, "-o", tmp]       # okk_* stay undefined: the C-model has them
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(f"{os.path.basename(source_path)} does not compile:\n{proc.stderr.strip()}", cmd)
        os.replace(tmp, lib)
    return lib


def run_on_cmodel(source_path: str, entry: str, param: bytes, writes=(), reads=(), defines=None,
                  include_dirs=(), timeout: float = 600, global_bytes: int | None = None) -> CModelRun:
    """writes: [(system_addr, bytes)]; reads: [(system_addr, nbytes)] after the kernel returned.
    ``global_bytes``: the C-model's global memory (default ``oracle.cmodel.GLOBAL_BYTES``, 256 MiB)."""
    from ..oracle.fetch import available
    if not available():
        raise FileNotFoundError("C-model libraries absent: run python -m npusim.okk.oracle.fetch")
    lib = build_for_cmodel(source_path, defines, include_dirs)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    fd, log = tempfile.mkstemp(prefix="npusim-cmodel-", suffix=".log")
    os.close(fd)
    try:
        job = pickle.dumps((lib, entry, bytes(param), list(writes), list(reads), log, global_bytes))
        proc = subprocess.run([sys.executable, "-m", "npusim.okk.c.cmodel_route"], input=job,
                              capture_output=True, env=env, timeout=timeout)
        if proc.returncode != 0 or not proc.stdout:
            with open(log, errors="replace") as f:
                text = f.read()[:1500]
            raise NpuSimError(f"the C-model run of {entry} failed (exit {proc.returncode}): {text}"
                              f"{proc.stderr.decode(errors='replace')[-2000:]}")
        return pickle.loads(proc.stdout)
    finally:
        os.unlink(log)


def _worker() -> None:
    job = pickle.loads(sys.stdin.buffer.read())
    lib_path, entry, param, writes, reads, log_path = job[:6]
    global_bytes = job[6] if len(job) > 6 else None
    out = os.fdopen(os.dup(1), "wb")
    log = open(log_path, "w+")
    os.dup2(log.fileno(), 1)       # the C-model prints on stdout; keep it out of the pickle channel
    os.dup2(log.fileno(), 2)
    from ..oracle import cmodel as cmodel_module
    from ..oracle.cmodel import CModel, parse_dump
    if global_bytes:
        cmodel_module.GLOBAL_BYTES = int(global_bytes)
    cm = CModel("backend")
    for addr, data in writes:
        cm.write(addr, data, False)
    kernel = ctypes.CDLL(lib_path, mode=os.RTLD_LAZY | os.RTLD_GLOBAL)
    func = getattr(kernel, entry)
    func.argtypes = [ctypes.c_void_p]
    buf = ctypes.create_string_buffer(param, max(1, len(param)))
    t0, c0 = time.perf_counter(), time.process_time()
    func(buf)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    got = [cm.read(addr, n, False) for addr, n in reads]
    text = cm.new_dump_text()
    sys.stdout.flush()
    log.seek(0)
    pickle.dump(CModelRun(got, parse_dump(text)[1], log.read()[-4000:], seconds, cpu), out)
    out.flush()


if __name__ == "__main__":
    from npusim.okk.c import cmodel_route as _module
    _module._worker()
