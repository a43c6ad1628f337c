"""The table a sweep returns: rows in space order, the best row, CSV, a PNG per parameter, a rich table."""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass

from ..core.errors import ConstraintError
from .row import Row

_FIXED = ("sim_ns", "cycles", "instructions", "passed", "error", "wall_s")


@dataclass
class SweepResult:
    rows: list[Row]
    params: list[str]
    executor: str = ""

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    @property
    def passed(self) -> list[Row]:
        return [r for r in self.rows if r.passed]

    @property
    def failed(self) -> list[Row]:
        return [r for r in self.rows if not r.passed]

    @property
    def engines(self) -> list[str]:
        return sorted({e for r in self.rows for e in r.busy_ns})

    @property
    def columns(self) -> list[str]:
        return (self.params + list(_FIXED) + [f"busy_ns.{e}" for e in self.engines]
                + [f"util.{e}" for e in self.engines])

    def record(self, row: Row) -> dict:
        """One row as a flat dict over :attr:`columns` (None where a row has no value)."""
        out = {p: row.config.get(p) for p in self.params}
        out.update(sim_ns=row.sim_ns, cycles=row.cycles, instructions=row.instructions, passed=row.passed,
                   error=row.error, wall_s=row.wall_s)
        for e in self.engines:
            out[f"busy_ns.{e}"] = row.busy_ns.get(e)
            out[f"util.{e}"] = row.util.get(e)
        return out

    def records(self) -> list[dict]:
        return [self.record(r) for r in self.rows]

    def best(self, key: str = "sim_ns", maximize: bool = False) -> Row:
        """The passing row with the smallest (``maximize=True``: largest) value of ``key``, any column:
        ``sim_ns``, ``cycles``, ``instructions``, ``wall_s``, ``util.<engine>``, ``busy_ns.<engine>``.
        Ties go to the earlier row of the space."""
        if key not in self.columns or key in self.params + ["passed", "error"]:
            raise ConstraintError("SweepResult.best", "key", "a numeric result column: "
                                  + ", ".join(c for c in self.columns if c not in self.params
                                              and c not in ("passed", "error")), key)
        scored = [(v, r.index, r) for r in self.passed
                  if (v := self.record(r)[key]) is not None and not math.isnan(v)]
        if not scored:
            first = next((r.error for r in self.rows if r.error), "no rows")
            raise LookupError(f"no configuration of the sweep passed with a value for {key!r} "
                              f"({len(self.rows)} rows; first error: {first})")
        sign = -1 if maximize else 1
        return min(scored, key=lambda t: (sign * t[0], t[1]))[2]

    def to_csv(self, path) -> None:
        with open(path, "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=self.columns)
            writer.writeheader()
            for rec in self.records():
                writer.writerow({k: ("" if v is None else v) for k, v in rec.items()})

    def plot(self, path, title: str = "npusim sweep") -> None:
        """A PNG with one panel per parameter: simulated time of every passing row against that
        parameter's value (a line through the best row of each value), failing rows as red crosses."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        params = self.params or ["index"]
        fig, axes = plt.subplots(1, len(params), figsize=(4.2 * len(params), 3.4), squeeze=False)
        ok = [r for r in self.passed if r.sim_ns is not None]
        best = self.best() if ok else None
        top = max((r.sim_ns for r in ok), default=1.0) / 1e3
        for ax, p in zip(axes[0], params):
            values = _ordered_values([r.config.get(p, r.index) if p != "index" else r.index for r in self.rows])
            x_of = {_key(v): i for i, v in enumerate(values)}
            xs = [x_of[_key(self._value(r, p))] for r in ok]
            ax.scatter(xs, [r.sim_ns / 1e3 for r in ok], s=18, alpha=0.6, label="passing config")
            line = {}
            for x, r in zip(xs, ok):
                line[x] = min(line.get(x, math.inf), r.sim_ns / 1e3)
            ax.plot(sorted(line), [line[x] for x in sorted(line)], "-", lw=1.2, label="best at this value")
            bad = [x_of[_key(self._value(r, p))] for r in self.failed]
            if bad:
                ax.scatter(bad, [0] * len(bad), marker="x", color="red", label="failed")
            if best is not None:
                ax.scatter([x_of[_key(self._value(best, p))]], [best.sim_ns / 1e3], marker="*", s=160,
                           color="gold", edgecolor="black", zorder=5, label="best")
            ax.set_xticks(range(len(values)))
            ax.set_xticklabels([str(v) for v in values], rotation=30 if len(values) > 6 else 0)
            ax.set_xlabel(p)
            ax.set_ylim(bottom=-0.03 * top)
            ax.grid(alpha=0.3)
        axes[0][0].set_ylabel("simulated time (us)")
        axes[0][-1].legend(fontsize="small", loc="best")
        fig.suptitle(title if best is None else
                     f"{title}: best {_config_text(best.config)} = {best.sim_ns / 1e3:,.3f} us")
        fig.tight_layout()
        fig.savefig(path, dpi=90)
        plt.close(fig)

    @staticmethod
    def _value(row: Row, p: str):
        return row.index if p == "index" else row.config.get(p)

    def __rich_console__(self, console, options):
        """One line per row, the error cut to the width left; when no width is left, the distinct errors
        follow the table (the CSV has every column in full)."""
        from rich.text import Text

        room = options.max_width - self._table(None).__rich_measure__(console, options).maximum - 3
        yield self._table(room if self.failed and room >= 16 else None)
        if self.failed and room < 16:
            errors = list(dict.fromkeys(r.error for r in self.failed))
            for e in errors[:3]:
                yield Text(_cut(e, options.max_width - 4), style="red")
            if len(errors) > 3:
                yield Text(f"... {len(errors) - 3} more distinct errors (SweepResult.failed, the CSV)", style="red")

    def _table(self, error_width: int | None):
        from rich.table import Table
        from rich.text import Text       # cells are plain text: an error's "[1, 2]" is not markup

        best = self.best() if any(r.sim_ns is not None for r in self.passed) else None
        table = Table(title=f"npusim sweep: {len(self.rows)} configs, {len(self.passed)} passed"
                      + (f" ({self.executor})" if self.executor else ""))
        for p in self.params:
            table.add_column(p, justify="right", no_wrap=True)
        for col in ("sim us", "instr", "busiest engine", "ok"):
            table.add_column(col, justify="left" if col == "busiest engine" else "right", no_wrap=True)
        if error_width:
            table.add_column("error", no_wrap=True)
        for r in self.rows:
            busiest = max(r.util.items(), key=lambda kv: kv[1], default=None)
            cells = [str(r.config.get(p, "")) for p in self.params] + [
                "-" if r.sim_ns is None else f"{r.sim_ns / 1e3:,.3f}",
                str(r.instructions),
                f"{busiest[0]} {100 * busiest[1]:.0f}%" if busiest else "-",
                "yes" if r.passed else "NO"]
            if error_width:
                cells.append(_cut(r.error, error_width))
            table.add_row(*map(Text, cells), style="bold green" if r is best else ("red" if not r.passed else None))
        return table


def _cut(text: str | None, width: int) -> str:
    line = (text or "").splitlines()[0] if text else ""
    return line if len(line) <= width else line[:width - 1] + "…"


def _config_text(config: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in config.items())


def _key(v):
    return repr(v)


def _ordered_values(values) -> list:
    """Distinct values, numerically sorted when all are numbers, else in first-seen order."""
    seen: dict = {}
    for v in values:
        seen.setdefault(_key(v), v)
    out = list(seen.values())
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in out):
        out.sort()
    return out
