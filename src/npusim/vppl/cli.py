"""``npusim vppl FILE``: run a VPPL text and print its variables (and the simulated time)."""
from __future__ import annotations

import os

import numpy as np
from rich.table import Table

from ..core.errors import ConstraintError, NpuSimError


def register(subparsers) -> None:
    p = subparsers.add_parser("vppl", help="run a VPPL (SMYLEvideo GEN.2) text and print its variables")
    p.add_argument("file")
    p.add_argument("--extended", action="store_true",
                   help="run suffixes outside the GEN.2 instruction set (default: they are errors, as --G2)")
    p.add_argument("--PINA", "--pin-a", dest="pin_a", help="PNG loaded into image buffer A")
    p.add_argument("--PINB", "--pin-b", dest="pin_b", help="PNG loaded into image buffer B")
    p.add_argument("--reading", action="append", default=[], metavar="FIELD=CHOICE",
                   help="an alternative reading of an ambiguous point, e.g. mul=q15 (docs/vppl.md)")
    p.add_argument("--extern", action="append", default=[], metavar="NAME=VALUE",
                   help="bind an External global: NAME=FILE.npy (a pointer gets a fresh 32-byte aligned data-memory "
                        "block holding the array; a vector its elements; an integer a one-element array), NAME=INT "
                        "(an integer, or a pointer's address), NAME=zeros:NBYTES (a pointer to a zeroed output block)")
    p.add_argument("--externs", metavar="FILE.npz",
                   help="bind every array of an .npz file to the External of the same name (as --extern NAME=FILE.npy)")
    p.add_argument("--read", action="append", default=[], metavar="NAME=DTYPE:COUNT[:OUT.npy]",
                   help="after the run, print COUNT elements of DTYPE (e.g. int16) at pointer NAME from data memory "
                        "(and save them to OUT.npy)")
    p.add_argument("--trace", help="write Chrome/Perfetto trace JSON here")
    p.set_defaults(func=cmd_vppl)


def _show(v) -> str:
    if isinstance(v, np.ndarray):
        return f"{v.dtype}[{v.size}] " + np.array2string(v, threshold=24, max_line_width=100, separator=", ")
    return str(v)


def _image(path: str):
    return np.load(path) if path.endswith(".npy") else path


def _externals(args) -> dict:
    """--externs FILE.npz and --extern NAME=VALUE -> run_with's externals (ValueError on a bad form)."""
    from .lang_part_two import DmBlock
    ext: dict = {}
    if args.externs:
        with np.load(args.externs) as z:
            ext.update({k: z[k] for k in z.files})
    for item in args.extern:
        name, sep, val = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--extern {item!r}: expected NAME=FILE.npy, NAME=INT or NAME=zeros:NBYTES")
        if val.startswith("zeros:"):
            ext[name] = DmBlock(int(val[6:], 0))
        elif val.endswith(".npy"):
            ext[name] = np.load(val)
        else:
            ext[name] = int(val, 0)
    return ext


def _reads(args) -> list[tuple[str, np.dtype, int, str | None]]:
    out = []
    for item in args.read:
        name, sep, spec = item.partition("=")
        parts = spec.split(":")
        if not sep or len(parts) not in (2, 3):
            raise ValueError(f"--read {item!r}: expected NAME=DTYPE:COUNT[:OUT.npy]")
        out.append((name, np.dtype(parts[0]), int(parts[1], 0), parts[2] if len(parts) == 3 else None))
    return out


_FORMS = {"pointer": "NAME=FILE.npy (data placed in data memory) or NAME=zeros:NBYTES (an output block)",
          "integer": "NAME=INT"}


def _unbound_message(path: str, missing: dict) -> str:
    """Every External the host must bind, with the option form for each, and the example's helper."""
    lines = [f"{path}: {len(missing)} External global(s) are bound by the host; bind them with --extern "
             f"(or all at once with --externs FILE.npz holding one array per name):"]
    for name, kind in missing.items():
        lines.append(f"  {name} : {kind}  ->  --extern " + _FORMS.get(kind, "NAME=FILE.npy (the vector's elements)")
                     .replace("NAME", name))
    script = os.path.splitext(path)[0] + ".py"
    if os.path.exists(script):
        with open(script, encoding="utf-8") as f:
            if "def write_inputs" in f.read():
                lines.append(f"  `python {script} --write-inputs DIR` writes these files and prints the full command.")
    return "\n".join(lines)


def cmd_vppl(args, console) -> int:
    from .interpreter import Program, result
    from .machine import Machine
    from .readings import Readings
    images = {k: _image(v) for k, v in (("A", args.pin_a), ("B", args.pin_b)) if v}
    try:
        readings = Readings(**dict(r.split("=", 1) for r in args.reading))
    except (TypeError, ValueError) as e:
        console.print(f"--reading: {e}", markup=False)
        return 2
    try:
        externals, reads = _externals(args), _reads(args)
    except (TypeError, ValueError, OSError) as e:
        console.print(f"--extern/--externs/--read: {e}", markup=False)
        return 2
    try:
        with open(args.file, encoding="utf-8") as f:
            src = f.read()
        m = Machine("extended" if args.extended else "gen2", readings=readings)
        m.externals = externals
        prog = Program(src, os.path.basename(args.file))
        missing = {k: v for k, v in getattr(prog, "externals", {}).items() if k not in externals}
        if missing:
            console.print(_unbound_message(args.file, missing), markup=False, highlight=False, soft_wrap=True)
            return 1
        env = prog.run(m, images)
        outputs = []
        for name, dt, count, path in reads:
            if name not in env:
                raise ConstraintError("--read", "NAME", "a variable of the program", name)
            from .machine import using
            from .pointers import dm_read
            with using(m):
                outputs.append((name, dm_read(env[name], dt, count), path))
    except NpuSimError as e:
        console.print("\n".join([str(e), *getattr(e, "__notes__", [])]), markup=False, highlight=False)
        return 1
    table = Table(title=f"{args.file}: variables after the run")
    table.add_column("name")
    table.add_column("value")
    for k, v in result(env).items():
        note = "" if getattr(env[k], "valid", True) else "  (undefined: never written, or a work area)"
        table.add_row(k, _show(v) + note)
    console.print(table)
    for name, a, path in outputs:
        console.print(f"{name} -> {_show(a)}", markup=False, highlight=False)
        if path:
            np.save(path, a)
            console.print(f"{name} written to {path}", markup=False)
    tr = m.timeline.trace
    console.print(f"{len(tr.events)} instruction(s), {m.timeline.now_ns / 1e3:,.3f} us simulated "
                  f"at {m.freq_hz / 1e6:g} MHz ({m.timeline.now_ns * m.freq_hz / 1e9:,.0f} cycles, estimate)")
    if args.trace:
        tr.to_chrome(args.trace)
        console.print(f"trace written to {args.trace}")
    return 0
