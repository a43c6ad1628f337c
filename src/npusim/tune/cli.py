"""``npusim sweep kernel.py --param tile=64,128 --param bufs=1,2 [--workers N | --scheduler ADDR]``.

kernel.py defines ``run(**config)`` and optionally ``check(output, **config)``; each worker imports the
file by path (:class:`KernelFile`), so nothing in it needs to pickle."""
from __future__ import annotations

import os

from .driver import sweep
from .kernel_file import KernelFile, load_module


def register(sub) -> None:
    p = sub.add_parser("sweep", help="run a kernel file's run(**config) over a parameter space, in parallel")
    p.add_argument("file", help="a Python file defining run(**config) and optionally check(output, **config)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=V1,V2,...",
                   help="a parameter and its values (repeat for more; the sweep is their cartesian product)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    where.add_argument("--scheduler", metavar="ADDR", help="run on this Dask scheduler (needs npusim[dask])")
    p.add_argument("--best", default="sim_ns", metavar="KEY", help="the column to minimise (default sim_ns)")
    p.add_argument("--csv", help="write every row here")
    p.add_argument("--plot", help="write simulated time against each parameter here (PNG)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_sweep)


def parse_param(text: str) -> tuple[str, list]:
    """``tile=64,128`` -> ("tile", [64, 128]); values are ints, then floats, then strings."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier() or not values.strip():
        raise SystemExit(f"npusim sweep: --param wants NAME=V1,V2,... (got {text!r})")
    return name, [_value(v.strip()) for v in values.split(",")]


def _value(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def cmd_sweep(args, console) -> int:
    path = os.path.abspath(args.file)
    if not os.path.isfile(path):
        console.print(f"npusim sweep: no such file {args.file}", style="red", markup=False)
        return 2
    module = load_module(path)
    if not callable(getattr(module, "run", None)):
        console.print(f"npusim sweep: {args.file} defines no run(**config)", style="red", markup=False)
        return 2
    space = dict(parse_param(p) for p in args.param)
    check = KernelFile(path, "check") if callable(getattr(module, "check", None)) else None
    executor = args.scheduler if args.scheduler else args.workers
    try:
        result = sweep(KernelFile(path, "run"), space, check=check, executor=executor,
                       progress=not args.no_progress)
    except ImportError as exc:          # --scheduler without dask installed: the message names the extra
        console.print(f"npusim sweep: {exc}", style="red", markup=False)
        return 2
    console.print(result)
    if args.csv:
        result.to_csv(args.csv)
        console.print(f"rows written to {args.csv}")
    if args.plot:
        result.plot(args.plot, title=os.path.basename(args.file))
        console.print(f"plot written to {args.plot}")
    try:
        best = result.best(args.best)
    except LookupError as exc:
        console.print(str(exc), style="red", markup=False)
        return 1
    config = " ".join(f"{k}={v}" for k, v in best.config.items())
    console.print(f"best by {args.best}: {config}: {best.sim_ns / 1e3:,.3f} us simulated "
                  f"({best.cycles:,.0f} cycles, {best.instructions} instructions)", markup=False)
    return 0
