"""Optional native kernels for the fp32 sums of products on the no-FTZ fast path (native/fast_mac.c).

numpy stays the reference: these run only when a C compiler is available, ``NPUSIM_NATIVE`` is not
``0``, and fastsum proved the plain IEEE path exact (no product can be subnormal, no input is a NaN).
Built once with -O2 -ftree-vectorize -ffp-contract=off -fno-fast-math (products round before the add;
-march=native when it builds) into the npusim cache folder, keyed by the source, the compiler, the
flags and the CPU; ctypes releases the GIL while a kernel runs. A build or load failure disables the
native path with one warning; results never change.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import warnings

import numpy as np

from ..core import native_build

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "native", "fast_mac.c")
FLAGS = ["-std=gnu99", "-O2", "-ftree-vectorize", "-ffp-contract=off", "-fno-fast-math",
         "-fPIC", "-shared"]
ARCH = ["-march=native"]             # tried first; the cache key holds the CPU's flags
_LIB: list = []                      # [CDLL or None] once decided

_F = _I = _PL = ctypes.c_void_p      # arrays pass as addresses (a.ctypes.data): cheaper than data_as
_L = ctypes.c_long


def enabled() -> bool:
    return os.environ.get("NPUSIM_NATIVE", "1") != "0" and lib() is not None


def _build() -> str | None:
    from .c.compile import find_compiler
    try:
        cc = find_compiler()
    except native_build.CompileError:
        return None
    with open(SOURCE, "rb") as f:
        src = f.read()
    errors = ""
    for flags in (FLAGS + ARCH, FLAGS):
        h = hashlib.sha256(src + b"\0" + " ".join(cc + flags).encode() + b"\0" + native_build.cpu_signature())
        path = os.path.join(native_build.cache_dir("okk_native"), f"fast_mac-{h.hexdigest()[:20]}.so")
        if os.path.exists(path):
            return path
        tmp = f"{path}.{os.getpid()}.tmp"
        proc = subprocess.run(cc + flags + [SOURCE, "-o", tmp], capture_output=True, text=True)
        if proc.returncode == 0:
            os.replace(tmp, path)
            return path
        errors = proc.stderr.strip()
    warnings.warn(f"npusim.okk: native fast_mac.c does not build, using numpy: {errors[:500]}", RuntimeWarning)
    return None


def lib():
    """The loaded library, or None (no compiler, or it does not build)."""
    if not _LIB:
        path = _build()
        handle = None
        if path:
            try:
                handle = ctypes.CDLL(path)
            except OSError as e:
                warnings.warn(f"npusim.okk: cannot load {path} ({e}), using numpy", RuntimeWarning)
                _LIB.append(None)
                return None
            handle.okk_conv2ic.argtypes = [_F, _L, _L, _L, _F, _L, _PL, _I, _L, _F, _F, _L, _L, _L, _L]
            handle.okk_even_odd_taps.argtypes = [_F, _L, _L, _L, _L, _PL, _L, _F, _F, _L, _L]
            handle.okk_even_odd_dot.argtypes = [_F, _F, _F] + [_L] * 5
            handle.okk_min_abs_nonzero.argtypes = [_F, _L, ctypes.POINTER(ctypes.c_int)]
            handle.okk_min_abs_nonzero.restype = ctypes.c_float
            for fn in (handle.okk_conv2ic, handle.okk_even_odd_taps, handle.okk_even_odd_dot):
                fn.restype = None
        _LIB.append(handle)
    return _LIB[0]


def _p(a: np.ndarray) -> int:
    assert a.flags.c_contiguous and a.dtype.itemsize in (4, 8)
    return a.ctypes.data


def min_abs_nonzero(x: np.ndarray) -> tuple[float, bool]:
    """(min |x| over nonzero x or inf, any NaN) in one pass; x float32."""
    x = np.ascontiguousarray(x, np.float32)
    nan = ctypes.c_int(0)
    m = lib().okk_min_abs_nonzero(_p(x), x.size, ctypes.byref(nan))
    return float(m), bool(nan.value)


def phases(xp: np.ndarray, st, dil, taps) -> tuple[np.ndarray, list[int]]:
    """The padded input (N, C, Hp, Wp) as stride-phase planes (N, C, sh, sw, Hph, Wph), Hph = ceil(Hp/sh):
    phase (a, b) holds xp[..., a::sh, b::sw], so tap (i, j) of output (r, q) is phase
    (i*dh % sh, j*dw % sw) at (r + i*dh // sh, q + j*dw // sw): a unit-stride run. Returns the planes
    and, per tap, its offset inside one channel's block (sh*sw*Hph*Wph floats)."""
    sh, sw = st
    n, c, hp, wp = xp.shape
    hph, wph = -(-hp // sh), -(-wp // sw)
    if sh == sw == 1:
        ph = np.ascontiguousarray(xp, np.float32).reshape(n, c, 1, 1, hp, wp)
    else:
        ph = np.zeros((n, c, sh, sw, hph, wph), np.float32)
        for a in range(sh):
            for b in range(sw):
                part = xp[:, :, a::sh, b::sw]
                ph[:, :, a, b, :part.shape[2], :part.shape[3]] = part
    offs = []
    for i, j in taps:
        di, dj = i * dil[0], j * dil[1]
        offs.append((((di % sh) * sw + dj % sw) * hph + di // sh) * wph + dj // sw)
    return ph, offs


def conv2ic(ph, witem, off, accs, init, out, oc_lo, oc_hi) -> None:
    """Output channels [oc_lo, oc_hi) of ``out`` (N, OC, OH, OW); see okk_conv2ic in fast_mac.c. ``ph``
    from ``phases``; off (int64) and accs (int32) per item."""
    n = ph.shape[0]
    oh, ow = out.shape[2:]
    lib().okk_conv2ic(_p(ph), n, ph[0].size, ph.shape[-1], _p(witem), witem.shape[1], _p(off),
                      _p(accs), off.size, _p(init), _p(out), oh, ow, oc_lo, oc_hi)


def even_odd_taps(xp, w, kh, kw, oh, ow, st, dil) -> np.ndarray:
    """Depthwise / average-pool sums, see okk_even_odd_taps in fast_mac.c; w (C, kh*kw) float32."""
    n, c = xp.shape[:2]
    ph, offs = phases(xp, st, dil, [(i, j) for i in range(kh) for j in range(kw)])
    off = np.array(offs, np.int64)
    out = np.empty((n, c, oh, ow), np.float32)
    lib().okk_even_odd_taps(_p(ph), n, c, ph[0, 0].size, ph.shape[-1], _p(off), off.size,
                            _p(np.ascontiguousarray(w, np.float32)), _p(out), oh, ow)
    return out


def even_odd_dot(left, right, out, m_lo, m_hi) -> None:
    m, k = left.shape
    lib().okk_even_odd_dot(_p(left), _p(right), _p(out), m, k, right.shape[1], m_lo, m_hi)
