"""Run every benchmarks/bench_*.py and print (or --write) the BENCHMARKS.md table."""
from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

from harness import fmt_seconds, run_case  # noqa: E402


def bench_files(only: str | None) -> list[str]:
    return [f for f in sorted(os.listdir(HERE))
            if f.startswith("bench_") and f.endswith(".py") and (not only or only in f)]


def rows_of(fname: str) -> list[str]:
    """Run one bench file's cases in this process; its table rows."""
    spec = importlib.util.spec_from_file_location(fname[:-3], os.path.join(HERE, fname))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = []
    for case in mod.cases():
        r = run_case(case)
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
        base = fmt_seconds(r.numpy_s) if r.numpy_s else "-"
        per = (f"{fmt_seconds(r.per_call_s)} (best {fmt_seconds(r.best_per_call_s)})"
               if case.per > 1 else "-")
        rows.append(f"| {case.name} | {fmt_seconds(r.median_s)} | {per} | {base} | {ratio} | {case.target} |")
        print(rows[-1], flush=True)
    return rows


def machine() -> str:
    import ml_dtypes
    import numpy
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, numpy {numpy.__version__}, "
            f"ml_dtypes {ml_dtypes.__version__}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", help="write the markdown table to this file")
    ap.add_argument("--only", help="only bench files whose name contains this")
    ap.add_argument("--file", help=argparse.SUPPRESS)     # internal: run one file, print its rows
    args = ap.parse_args()
    if args.file:
        rows_of(args.file)
        return 0
    lines = ["# Benchmarks", "",
             "Simulator wall time against plain numpy doing the same math (median of repeats after a "
             "warm-up; per-call rows also give the best repeat, the least disturbed run on a shared machine). "
             "Regenerate with `make bench`.", "", f"Machine: {machine()}; load average when "
             f"started {os.getloadavg()[0]:.1f} (per-call rows on a shared machine vary by 30-50 %)", ""]
    for fname in bench_files(args.only):
        # Each file in its own process: the C-model libraries keep process-wide state (one init per
        # process), and one file's caches must not speed up or slow down another's.
        group = fname[6:-3]
        print(f"## {group}", flush=True)
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--file", fname],
                              capture_output=True, text=True)
        rows = [line for line in proc.stdout.splitlines() if line.startswith("| ")]
        for row in rows:
            print(row, flush=True)
        lines += [f"## {group}", "", "| case | simulator | per call | numpy | ratio | target |",
                  "|---|---|---|---|---|---|", *rows]
        if proc.returncode != 0:
            err = (proc.stderr.strip().splitlines() or ["?"])[-1]
            lines.append(f"\n(this file stopped early: exit {proc.returncode}: {err})")
            print(f"  {fname} failed: {err}", flush=True)
        lines.append("")
    text = "\n".join(lines)
    if args.write:
        with open(args.write, "w") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
