"""``Compare``: side-by-side tables of ``Measurement`` medians, as ``torch.utils.benchmark``.

One table per label; rows are sub-labels (or statements) grouped by thread count and env,
columns are descriptions. The unit is chosen per table from its fastest cell.
"""

import enum
import math

from . import common

__all__ = ["Colorize", "Compare"]


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


# ANSI styles of a cell, by how it compares with the best cell of its row/column.
_BEST = "\033[92m\033[1m"
_CLOSE = "\033[34m\033[1m"
_SLOW = "\033[2m\033[91m"
_VERY_SLOW = "\033[31m\033[1m"
_RESET = "\033[0m\033[0m"
_SEP = "  |  "


def _style(value, best):
    if value == best:
        return _BEST
    if value <= best * 1.1:
        return _CLOSE
    if value >= best * 5:
        return _VERY_SLOW
    if value >= best * 2:
        return _SLOW
    return ""


class _Cell:
    def __init__(self, m, scale, trim):
        self.m = m
        self.value = m.median / scale
        self.decimals = 1
        if trim:
            digits = m.significant_figures
            self.value = common.trim_sigfig(self.value, digits)
            self.decimals = max(digits - (math.floor(math.log10(abs(self.value))) + 1), 0)
        self.share = m.iqr / m.median * 100


class _Table:
    def __init__(self, label, results, colorize, trim, highlight):
        self.label = label
        self.colorize = colorize
        self.highlight = highlight
        self.unit, scale = common.select_unit(min(r.median for r in results))
        self.has_env = any(r.env is not None for r in results)
        self.rows = common.ordered_unique((r.num_threads, r.env, r.as_row_name) for r in results)
        self.rows.sort(key=lambda k: (k[0], k[1]))  # stable: first appearance within a group
        self.cols = common.ordered_unique(r.description for r in results)
        self.cells = {(self.rows.index((r.num_threads, r.env, r.as_row_name)),
                       self.cols.index(r.description)): _Cell(r, scale, trim) for r in results}

    def _best(self, i, j):
        if self.colorize == Colorize.ROWWISE:
            peers = [c for (ri, _), c in self.cells.items() if ri == i]
        else:
            threads = self.rows[i][0]
            peers = [c for (ri, cj), c in self.cells.items()
                     if cj == j and self.rows[ri][0] == threads]
        return min(c.m.median for c in peers)

    def _column_texts(self, j):
        cells = {i: c for (i, cj), c in self.cells.items() if cj == j}
        decimals = min(c.decimals for c in cells.values())
        numbers = {i: f"{c.value:.{decimals}f}" for i, c in cells.items()}
        width = max(len(s) for s in numbers.values())
        warn = self.highlight and any(c.m.has_warnings for c in cells.values())
        texts = {}
        for i, c in cells.items():
            text = numbers[i].rjust(width)
            if warn:
                note = f" (! {c.share:.0f}%)"
                text += note if c.m.has_warnings else " " * len(note)
            texts[i] = text
        return texts

    def _row_names(self):
        if not self.has_env:
            return ["      " + name for _, _, name in self.rows]
        env_width = max(len(f"({env})") for _, env, _ in self.rows)
        names, previous = [], None
        for threads, env, name in self.rows:
            shown = f"({env})" if (threads, env) != previous else ""
            previous = (threads, env)
            names.append(f"  {shown:<{env_width}}  {name}")
        return names

    def render(self):
        texts = [self._column_texts(j) for j in range(len(self.cols))]
        widths = [max([len(str(h))] + [len(t) for t in col.values()])
                  for h, col in zip(self.cols, texts)]
        names = self._row_names()
        name_width = max(len(n) for n in names)
        body, threads = [], None
        for i, name in enumerate(names):
            if self.rows[i][0] != threads:
                threads = self.rows[i][0]
                body.append(None)  # placeholder for the section line
            parts = []
            for j, width in enumerate(widths):
                if i not in texts[j]:
                    parts.append(" " * width)
                    continue
                part = texts[j][i].center(width)
                if self.colorize != Colorize.NONE:
                    style = _style(self.cells[(i, j)].m.median, self._best(i, j))
                    if style:
                        part = style + part + _RESET
                parts.append(part)
            body.append((name.ljust(name_width), parts))
        header = " " * name_width + _SEP + _SEP.join(str(h).center(w)
                                                      for h, w in zip(self.cols, widths))
        total = len(header)
        lines, section = [], iter(sorted({r[0] for r in self.rows}))
        for entry in body:
            if entry is None:
                lines.append(f"{next(section)} threads: ".ljust(total, "-"))
            else:
                lines.append(entry[0] + _SEP + _SEP.join(entry[1]))
        label = "" if self.label is None else self.label
        title = "[" + f" {label} ".center(total - 2, "-") + "]"
        footer = ["", f"Times are in {common.unit_to_english(self.unit)}s ({self.unit})."]
        if self.highlight and any(c.m.has_warnings for c in self.cells.values()):
            footer.append("(! XX%) Measurement has high variance, where XX is the IQR / "
                          "median * 100.")
        return "\n".join([title, header] + lines + footer) + "\n"


class Compare:
    """Tables comparing the medians of ``Measurement`` objects.

    ``trim_significant_figures``, ``colorize`` and ``highlight_warnings`` switch on
    display options; ``str(compare)`` / ``compare.print()`` render the tables.
    """

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self):
        return "\n".join(self._render())

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(  # noqa: TRY004 (torch raises ValueError)
                    f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim_significant_figures = True

    def colorize(self, rowwise=False):
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def _render(self):
        groups = {}
        for m in common.Measurement.merge(self._results):
            groups.setdefault(m.label, []).append(m)
        return [_Table(label, ms, self._colorize, self._trim_significant_figures,
                       self._highlight_warnings).render() for label, ms in groups.items()]
