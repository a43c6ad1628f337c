"""Fetch Sophgo's BM1684 C-model libraries (the differential-test oracle).

``python -m npusim.okk.oracle.fetch`` downloads the ``tpu-mlir==1.30.2`` wheel with pip into a cache
outside the repository (``$NPUSIM_CACHE`` or ``~/.cache/npusim``) and extracts only the two shared
libraries the oracle loads.  Both need nothing beyond libc/libm/libstdc++/libgcc_s (checked with the
ELF ``NEEDED`` entries below), so no other file of the wheel is extracted.  Idempotent: a second run
finds the libraries and returns at once.  Neither the wheel nor the libraries go into the repository.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGE = "tpu-mlir==1.30.2"
LIBRARIES = ("libcmodel_bm1684.so", "libbackend_bm1684.so")
MEMBER_DIR = "tpu_mlir/lib/"
# Shared objects a normal Linux host provides; anything else NEEDED would have to come from the wheel.
SYSTEM_LIBS = ("libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "libdl.so", "libpthread.so",
               "librt.so", "ld-linux")


def cache_dir() -> Path:
    """Where the wheel and the extracted libraries live (never inside the repository)."""
    root = os.environ.get("NPUSIM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "npusim")
    return Path(root) / "tpu-mlir-1.30.2"


def library_path(name: str) -> Path:
    return cache_dir() / "lib" / name


def available() -> bool:
    return all(library_path(n).is_file() for n in LIBRARIES)


def _needed(path: Path) -> list[str]:
    """ELF NEEDED entries, via readelf when present (informational only)."""
    try:
        out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return [line.split("[", 1)[1].split("]", 1)[0] for line in out.splitlines() if "(NEEDED)" in line]


def _download(dest: Path) -> Path:
    wheels = sorted(glob.glob(str(dest / "tpu_mlir-1.30.2-*.whl")))
    if wheels:
        return Path(wheels[0])
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--python-version", "3.10",
           "--only-binary=:all:", "-d", str(dest), PACKAGE]
    print("running:", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)
    wheels = sorted(glob.glob(str(dest / "tpu_mlir-1.30.2-*.whl")))
    if not wheels:
        raise RuntimeError(f"pip download left no tpu_mlir wheel in {dest}")
    return Path(wheels[0])


def _extract(wheel: Path, names: list[str]) -> None:
    libdir = cache_dir() / "lib"
    libdir.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as zf:
        for name in names:
            target = libdir / name
            if target.is_file():
                continue
            tmp = target.with_suffix(".part")
            with zf.open(MEMBER_DIR + name) as src, open(tmp, "wb") as out:
                out.write(src.read())
            tmp.replace(target)  # atomic: a half-written library never looks present


def fetch(verbose: bool = True) -> Path:
    """Make sure both libraries are extracted; return their directory."""
    if available():
        if verbose:
            print("C-model libraries present in", cache_dir() / "lib")
        return cache_dir() / "lib"
    dest = cache_dir()
    dest.mkdir(parents=True, exist_ok=True)
    wheel = _download(dest)
    _extract(wheel, list(LIBRARIES))
    with zipfile.ZipFile(wheel) as zf:
        in_wheel = {Path(m).name for m in zf.namelist() if m.startswith(MEMBER_DIR)}
    extra = []
    for name in LIBRARIES:
        for dep in _needed(library_path(name)):
            if not dep.startswith(SYSTEM_LIBS) and dep in in_wheel:
                extra.append(dep)
    if extra:
        _extract(wheel, sorted(set(extra)))
    if verbose:
        print("C-model libraries extracted to", cache_dir() / "lib", "extra deps:", extra or "none")
    return cache_dir() / "lib"


if __name__ == "__main__":
    fetch()
