# `flaresim plot`: reads a CSV with a header (flaresim sweep's results.csv, or any such table),
# builds the series to draw (x values, y metrics, one series per group value and metric; rows not
# done left out; rows sharing a point averaged) and draws them with matplotlib into a PNG, or with
# --describe prints them. The units of axes come from the keys' names (unit_of). The flaresim
# binary embeds this file at build time (CMake turns it into plot_script.h) and runs it as
# `/usr/bin/python3 -c SCRIPT ARGS` (sc_model/app/cmd_plot.cpp). Manual: docs/PLOTS.md.
import argparse
import csv
import hashlib
import math
import os
import re
import signal
import sys
import tempfile
import textwrap

SOFTWARE = "flaresim plot"  # the PNG's Software text: marks a file this command wrote


class PlotError(Exception):
    """A problem with the input or the command line: printed as 'flaresim: MESSAGE', exit 2."""


class MissingDependency(Exception):
    """matplotlib cannot be imported: printed as 'flaresim: MESSAGE', exit 1."""


class Interrupted(Exception):
    """SIGINT or SIGTERM: the temporary PNG is removed on the way out; flaresim, which passed the
    signal on, says so. Exit 128 + the signal."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def stop_on_signal(signum, _frame):
    for s in (signal.SIGINT, signal.SIGTERM):  # a second signal must not cut the clean-up short
        signal.signal(s, signal.SIG_IGN)
    raise Interrupted(signum)


# ---------------------------------------------------------------------------------------------
# Units from key names (docs/STATS.md, "Units from key names"). A key's unit is read from its
# last dotted part once a trailing statistic is removed (`.avg`, `.p99`, `_max`, ...): the part is
# WORD or ends in _WORD for a WORD of this table. No match: no unit.
UNITS = [  # (WORD, unit)
    ("ps", "ps"), ("ns", "ns"), ("us", "µs"), ("ms", "ms"), ("seconds", "s"),
    ("gbps", "Gbit/s"), ("tbps", "Tbit/s"),
    ("bytes", "bytes"), ("kib", "KiB"), ("mib", "MiB"),
    ("cycles", "cycles"),
    ("utilisation", "fraction of the time"),
    ("packets", "packets"), ("frames", "frames"), ("total", "count"), ("count", "count"),
]
SIZE_UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20}  # units whose axis ticks read as sizes
STATISTIC = re.compile(r"[._](avg|mean|median|min|max|p\d+)$")


def unit_of(key):
    """The unit of a column from its name ('' when the name says none)."""
    name = key
    while STATISTIC.search(name):
        name = STATISTIC.sub("", name)
    last = name.split(".")[-1]
    for word, unit in UNITS:
        if last == word or last.endswith("_" + word):
            return unit
    return ""


# ---------------------------------------------------------------------------------------------
# Values.
NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
SIZE = re.compile(r"^(\d+)\s*(KiB|MiB|GiB)$")
SIZE_FACTORS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def number(text):
    """The value of a number cell, or None if the cell is not a plain decimal number."""
    return float(text) if NUMBER.match(text.strip()) else None


def size(text):
    """The bytes of a size cell as flaresim's configuration writes sizes (64KiB, 1MiB, 4096)."""
    m = SIZE.match(text.strip())
    if m:
        return float(int(m.group(1)) * SIZE_FACTORS[m.group(2)])
    return number(text)


def fmt(v):
    """A number as --describe prints it: up to 10 significant digits, no trailing zeros."""
    return f"{v:.10g}"


def fmt_size(v):
    """Bytes as a tick label: 512 B, 64 KiB, 1.5 MiB."""
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(v) >= factor:
            return f"{v / factor:g} {unit}"
    return f"{v:g} B"


# ---------------------------------------------------------------------------------------------
# The table.
class Table:
    def __init__(self, path, columns, rows, lines):
        self.path, self.columns, self.rows, self.lines = path, columns, rows, lines

    def column(self, key, option):
        if key not in self.columns:
            raise PlotError(f"{self.path}: no column '{key}' (for {option}); its columns: {', '.join(self.columns)}")
        return key


def read_table(path):
    """The CSV's header and rows (each a dict), with each row's line number."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            if not header:
                raise PlotError(f"{path}: empty file: expected a header line with the column names")
            rows, lines = [], []
            for cells in reader:
                if not cells:
                    continue
                if len(cells) != len(header):
                    raise PlotError(f"{path}:{reader.line_num}: {len(cells)} cells, but the header has {len(header)}")
                rows.append(dict(zip(header, cells)))
                lines.append(reader.line_num)
    except OSError as e:
        raise PlotError(f"cannot read {path}: {e.strerror}")
    except (UnicodeDecodeError, csv.Error) as e:
        raise PlotError(f"{path}: not a CSV file: {e}")
    return Table(path, header, rows, lines)


def select_rows(table, where):
    """The rows to plot (their indices), and the notes on those left out: rows not matching --where
    are not counted; rows whose status is not done are, by status."""
    keep = list(range(len(table.rows)))
    for key, value in where:
        table.column(key, f"--where {key}={value}")
        matching = [i for i in keep if table.rows[i][key] == value]
        if not matching:
            seen = sorted({table.rows[i][key] for i in keep})
            raise PlotError(f"{table.path}: no row has {key} = {value} (values: {', '.join(seen)})")
        keep = matching
    notes = []
    if "status" in table.columns:
        left = {}
        for i in keep:
            s = table.rows[i]["status"]
            if s != "done":
                left[s or "(empty)"] = left.get(s or "(empty)", 0) + 1
        if left:
            n = sum(left.values())
            notes.append(f"{n} {'row' if n == 1 else 'rows'} left out, status not done: " +
                         ", ".join(f"{c} {s}" for s, c in sorted(left.items())))
        done = [i for i in keep if table.rows[i]["status"] == "done"]
        if not done:
            raise PlotError(f"{table.path}: no row to plot: none of its {len(keep)} rows"
                            f"{' matching --where' if where else ''} is done (status: " +
                            ", ".join(f"{c} {s}" for s, c in sorted(left.items())) + ")")
        keep = done
    return keep, notes


# ---------------------------------------------------------------------------------------------
# The x axis: numbers, sizes (in bytes) or categories.
class XAxis:
    def __init__(self, key, kind, unit, values, categories):
        self.key, self.kind, self.unit = key, kind, unit
        self.values = values          # row index -> x position (number), missing rows absent
        self.categories = categories  # kind 'category': the labels in first-seen order


def x_axis(table, rows, key):
    cells = {i: table.rows[i][key].strip() for i in rows if table.rows[i][key].strip()}
    if not cells:
        raise PlotError(f"{table.path}: --x {key}: no row to plot has a value in it")
    numbers = {i: number(c) for i, c in cells.items()}
    if all(v is not None for v in numbers.values()):
        return XAxis(key, "number", unit_of(key), numbers, None)
    sizes = {i: size(c) for i, c in cells.items()}
    if all(v is not None for v in sizes.values()):
        return XAxis(key, "size", "bytes", sizes, None)
    categories = []
    for c in cells.values():
        if c not in categories:
            categories.append(c)
    return XAxis(key, "category", "", {i: float(categories.index(c)) for i, c in cells.items()}, categories)


def group_values(table, rows, key):
    """The group values in series order: numerically if every one is a number or size, else in
    first-seen order."""
    seen = []
    for i in rows:
        if table.rows[i][key] not in seen:
            seen.append(table.rows[i][key])
    if all(size(v) is not None for v in seen):
        seen.sort(key=size)
    return seen


# ---------------------------------------------------------------------------------------------
# Series: the points of one (group value, metric), each the mean, min and max of its rows.
class Point:
    def __init__(self, x, ys):
        self.x, self.n = x, len(ys)
        self.mean, self.min, self.max = sum(ys) / len(ys), min(ys), max(ys)


class Series:
    def __init__(self, group, metric, points):
        self.group, self.metric, self.points = group, metric, points


def build_series(table, rows, xaxis, group, order, metric, notes):
    """One series per group value (in `order`; one in all without --group) for `metric`."""
    missing = 0
    by_group = {}
    for i in rows:
        text = table.rows[i][metric].strip()
        if i not in xaxis.values or not text:
            missing += 1
            continue
        y = number(text)
        if y is None:
            raise PlotError(f"{table.path}:{table.lines[i]}: {metric} is '{text}', not a number")
        g = table.rows[i][group] if group else None
        by_group.setdefault(g, {}).setdefault(xaxis.values[i], []).append(y)
    if not by_group:
        raise PlotError(f"{table.path}: no row to plot has both an x value ({xaxis.key}) and a value of {metric}")
    if missing:
        notes.append(f"{missing} {'row' if missing == 1 else 'rows'} without a value of {metric} or {xaxis.key}: "
                     f"not in {metric}'s series")
    return [Series(g, metric, [Point(x, ys) for x, ys in sorted(by_group[g].items())])
            for g in order if g in by_group]


# ---------------------------------------------------------------------------------------------
# The command line. --y, --ref-y, --ylabel and --logy belong to the panel they appear in: the
# first, or the one the last --panel before them started. The other options may go anywhere.
def panel_options(p):
    p.add_argument("--y", action="append", default=[], metavar="METRIC",
                   help="a column to plot against x (repeat for several; each is a series per group value)")
    p.add_argument("--ref-y", action="append", default=[], metavar="VALUE=LABEL",
                   help="a horizontal reference line at VALUE, labelled LABEL in the legend")
    p.add_argument("--ylabel", metavar="TEXT", help="the y axis' name (default: the metrics'); the unit is added")
    p.add_argument("--logy", action="store_true", help="logarithmic y axis")


def parser():
    p = argparse.ArgumentParser(
        allow_abbrev=False, prog="flaresim plot", description="Plot columns of a CSV (flaresim sweep's results.csv) into a PNG.",
        usage="flaresim plot RESULTS.csv --x KEY --y METRIC [--y METRIC ...] [--group KEY] [-o OUT.png]\n"
              "         [--title TEXT] [--logx] [--logy] [--where KEY=VALUE] [--label KEY=TEXT] [--ref-y VALUE=LABEL]\n"
              "         [--ylabel TEXT] [--size WxH] [--dpi N] [--describe]\n"
              "         [--panel --y METRIC ... [--ref-y VALUE=LABEL] [--ylabel TEXT] [--logy]] ...",
        epilog="Rows whose status is not done are left out; rows sharing a group value and an x value are averaged "
               "(bars: min to max). Metrics with different units go on panels of their own; --panel starts one. "
               "docs/PLOTS.md has the details.")
    p.add_argument("csv", metavar="RESULTS.csv")
    p.add_argument("--x", required=True, metavar="KEY", help="the column along the x axis")
    p.add_argument("--group", metavar="KEY", help="one series per value of this column")
    p.add_argument("--where", action="append", default=[], metavar="KEY=VALUE", help="only rows whose KEY is VALUE")
    p.add_argument("--label", action="append", default=[], metavar="KEY=TEXT",
                   help="name a column in labels and the legend (its unit is still added)")
    p.add_argument("-o", "--output", metavar="OUT.png",
                   help="the PNG to write, overwritten if it exists (default: a name from the columns, next to the CSV)")
    p.add_argument("--title", metavar="TEXT", help="the figure's title")
    p.add_argument("--logx", action="store_true", help="logarithmic x axis (base 2 if every x is a power of 2)")
    p.add_argument("--size", default=None, metavar="WxH", help="figure size in inches (default: 5 per panel + 2.6 by 4.4)")
    p.add_argument("--dpi", type=int, default=100, help="pixels per inch (default 100)")
    p.add_argument("--describe", action="store_true", help="print the axes and the points of every series; write nothing")
    panel_options(p)
    return p


def split_panels(argv):
    segments = [[]]
    for a in argv:
        if a == "--panel":
            segments.append([])
        else:
            segments[-1].append(a)
    return segments


def pair(text, option, form="KEY=VALUE"):
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise PlotError(f"{option} {text}: expected {option} {form}")
    return key, value


def reference(text):
    value, label = pair(text, "--ref-y", "VALUE=LABEL")
    if number(value) is None:
        raise PlotError(f"--ref-y {text}: '{value}' is not a number")
    return number(value), label


class Panel:
    def __init__(self, metrics, refs, ylabel, logy):
        self.metrics, self.refs, self.ylabel, self.logy = metrics, refs, ylabel, logy
        self.series = []


def parse_args(argv):
    """The panel options of each stretch between --panel words are that panel's; the other options
    may go anywhere."""
    panel_parser = argparse.ArgumentParser(prog="flaresim plot", add_help=False, allow_abbrev=False)
    panel_options(panel_parser)
    panels, rest = [], []
    for segment in split_panels(argv):
        opts, others = panel_parser.parse_known_args(segment)
        panels.append(opts)
        rest += others
    args = parser().parse_args(rest)
    for n, p in enumerate(panels, 1):
        if not p.y:
            raise PlotError("no --y METRIC: give a column to plot" if n == 1 else
                            f"panel {n}: no --y METRIC after its --panel")
    args.panels = [Panel(p.y, [reference(r) for r in p.ref_y], p.ylabel, p.logy) for p in panels]
    args.where = [pair(w, "--where") for w in args.where]
    args.labels = dict(pair(w, "--label") for w in args.label)
    if args.size:
        m = re.match(r"^(\d+(\.\d*)?)x(\d+(\.\d*)?)$", args.size)
        if not m or float(m.group(1)) <= 0 or float(m.group(3)) <= 0:
            raise PlotError(f"--size {args.size}: expected WIDTHxHEIGHT in inches, such as 8x4.5")
        args.size = (float(m.group(1)), float(m.group(3)))
    if args.dpi <= 0:
        raise PlotError(f"--dpi {args.dpi}: expected a positive number of pixels per inch")
    return args


def split_by_unit(panels):
    """Panels whose metrics have different units become one panel per unit: an axis has one unit."""
    out = []
    for n, p in enumerate(panels, 1):
        units = []
        for m in p.metrics:
            if unit_of(m) not in units:
                units.append(unit_of(m))
        if len(units) > 1 and p.refs:
            raise PlotError(f"panel {n} has --ref-y but metrics of different units ("
                            + ", ".join(f"{m}: {unit_of(m) or 'no unit'}" for m in p.metrics)
                            + "): put them on panels of their own (--panel)")
        for u in units:
            out.append(Panel([m for m in p.metrics if unit_of(m) == u], p.refs, p.ylabel, p.logy))
    return out


# ---------------------------------------------------------------------------------------------
# Labels and names.
def name(key, labels):
    return labels.get(key, key)


def with_unit(text, unit):
    return f"{text} ({unit})" if unit else text


def y_label(panel, labels):
    return with_unit(panel.ylabel or ", ".join(name(m, labels) for m in panel.metrics), unit_of(panel.metrics[0]))


def x_label(xaxis, labels):
    return with_unit(name(xaxis.key, labels), xaxis.unit)


def default_title(args, panels, xaxis):
    ys = ", ".join(name(m, args.labels) for p in panels for m in p.metrics)
    title = f"{ys} against {name(xaxis.key, args.labels)}"
    return title + (f", per {name(args.group, args.labels)}" if args.group else "")


def default_output(args, panels):
    """OUT.png next to the CSV: plot-Y[+Y2...]-vs-X[-by-GROUP].png (long names shortened with a hash)."""
    ys = "+".join(m for p in panels for m in p.metrics)
    stem = f"plot-{ys}-vs-{args.x}" + (f"-by-{args.group}" if args.group else "")
    stem = re.sub(r"[^A-Za-z0-9._+-]", "_", stem)
    if len(stem) > 120:
        stem = stem[:100] + "-" + hashlib.sha1(stem.encode()).hexdigest()[:8]
    return os.path.join(os.path.dirname(args.csv), stem + ".png")


def check_output(path, explicit):
    """-o is overwritten; the default name only if this command wrote the file there."""
    if not path.endswith(".png"):
        raise PlotError(f"-o {path}: the output is a PNG: give a name ending in .png")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise PlotError(f"cannot write {path}: no folder {folder}")
    if os.path.isdir(path):
        raise PlotError(f"cannot write {path}: it is a folder")
    if explicit or not os.path.exists(path):
        return
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    if not (head.startswith(b"\x89PNG") and b"Software\x00" + SOFTWARE.encode() in head):
        raise PlotError(f"{path} exists and flaresim plot did not write it: not overwritten "
                        "(give -o to name the output, or -o with this name to overwrite it)")


# ---------------------------------------------------------------------------------------------
# --describe: the figure's content as text.
def describe(args, panels, xaxis, out, notes, kept, total):
    lines = [f"csv: {args.csv}", f"rows: {kept} of {total} plotted", f"output: {out}",
             f"title: {args.title or default_title(args, panels, xaxis)}"]
    scale = ""
    if args.logx:
        scale = f", log{log_base(list(xaxis.values.values()))} scale"
    kinds = {"number": "numbers", "size": "sizes in bytes", "category": "categories " + ", ".join(xaxis.categories or [])}
    lines.append(f"x: {x_label(xaxis, args.labels)}: {kinds[xaxis.kind]}{scale}")
    for n, p in enumerate(panels, 1):
        lines.append(f"panel {n}: y {y_label(p, args.labels)}{', log scale' if p.logy else ''}")
        for s in p.series:
            head = name(s.metric, args.labels) if s.group is None else f"{s.group}, {name(s.metric, args.labels)}"
            lines.append(f"  series {head}: {len(s.points)} {'point' if len(s.points) == 1 else 'points'}")
            for pt in s.points:
                x = xaxis.categories[int(pt.x)] if xaxis.kind == "category" else fmt(pt.x)
                lines.append(f"    x {x}: mean {fmt(pt.mean)}, min {fmt(pt.min)}, max {fmt(pt.max)}, "
                             f"{pt.n} {'row' if pt.n == 1 else 'rows'}")
        for value, label in p.refs:
            lines.append(f"  reference {label}: {fmt(value)}")
    lines += [f"note: {n}" for n in notes]
    print("\n".join(lines))


# ---------------------------------------------------------------------------------------------
# Drawing.
LINESTYLES = ["-", "--", ":", "-."]  # per metric of a panel
MARKERS = ["o", "s", "^", "D"]
REF_STYLES = [(0, (6, 3)), (0, (1, 2)), (0, (4, 2, 1, 2))]


def log_base(xs):
    return 2 if all(x > 0 and math.log2(x).is_integer() for x in xs) else 10


def import_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
    except ImportError as e:
        raise MissingDependency(f"plot needs matplotlib for {sys.executable} (cannot import it: {e}): install "
                                "python3-matplotlib (scripts/install-deps installs it)")
    return plt, Line2D


def style_x(ax, xaxis, logx):
    xs = sorted(set(xaxis.values.values()))
    if xaxis.kind == "category":
        ax.set_xticks(range(len(xaxis.categories)), xaxis.categories,
                      rotation=30 if sum(len(c) for c in xaxis.categories) > 40 else 0)
        ax.set_xlim(-0.5, len(xaxis.categories) - 0.5)
        return
    if logx:
        ax.set_xscale("log", base=log_base(xs))
    if len(xs) <= 12:  # few values, as sweeps have: a tick at each
        ax.set_xticks(xs)
        ax.minorticks_off()
        factor = SIZE_UNITS.get(xaxis.unit)
        labels = [fmt_size(x * factor) if factor else f"{x:g}" for x in xs]
        ax.set_xticklabels(labels, rotation=45 if len(xs) > 6 else 0, ha="right" if len(xs) > 6 else "center")


def style_log_y(ax):
    """A log y axis labelled in plain numbers, at 2 and 5 times each power of ten too when the data
    span less than three decades (otherwise one or two labels would be all)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    low, high = ax.dataLim.intervaly
    if high / low < 1000:
        ax.yaxis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        ax.yaxis.set_minor_formatter(plain)
    else:
        ax.yaxis.set_minor_formatter(NullFormatter())


def ref_label(value, label, unit):
    return f"{label} ({fmt(value)}{' ' + unit if unit else ''})"


def dodge(xaxis, group, groups):
    """On a categorical axis the groups' markers sit side by side around their category (0.3 wide
    in all), so that equal values do not hide each other; numeric axes keep the true x."""
    if xaxis.kind != "category" or len(groups) < 2:
        return 0.0
    return 0.3 * (groups.index(group) / (len(groups) - 1) - 0.5)


def draw_panel(ax, panel, xaxis, args, colours, Line2D):
    metric_index = {m: j for j, m in enumerate(panel.metrics)}
    lowest = math.inf
    for s in panel.series:
        j = metric_index[s.metric]
        colour = colours[s.group] if args.group else f"C{j % 10}"
        xs = [p.x + dodge(xaxis, s.group, list(colours)) for p in s.points]
        ys = [p.mean for p in s.points]
        err = [[p.mean - p.min for p in s.points], [p.max - p.mean for p in s.points]]
        ls = "none" if xaxis.kind == "category" else LINESTYLES[j % len(LINESTYLES)]
        ax.errorbar(xs, ys, yerr=err if any(p.n > 1 for p in s.points) else None, color=colour, linestyle=ls,
                    marker=MARKERS[j % len(MARKERS)], markersize=5, capsize=3, linewidth=1.5)
        lowest = min([lowest] + [p.min for p in s.points])
    refs = []
    for k, (value, label) in enumerate(panel.refs):
        style = REF_STYLES[k % len(REF_STYLES)]
        ax.axhline(value, color="0.35", linestyle=style, linewidth=1.2)
        refs.append(Line2D([], [], color="0.35", linestyle=style,
                           label=ref_label(value, label, unit_of(panel.metrics[0]))))
        lowest = min(lowest, value)
    style_x(ax, xaxis, args.logx)
    if panel.logy:
        style_log_y(ax)
    elif lowest >= 0:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(textwrap.fill(x_label(xaxis, args.labels), 60))
    ax.set_ylabel(textwrap.fill(y_label(panel, args.labels), 45))
    ax.grid(True, alpha=0.3)
    return refs


def legend_entries(args, panels, xaxis, colours, refs, Line2D):
    """(handles, header indices): the groups, then the metrics (when a panel has several, or there is
    no group), then the reference lines, each under a header line."""
    blank = lambda text: Line2D([], [], linestyle="none", label=text)
    marker_only = xaxis.kind == "category"
    handles, headers = [], []
    if args.group:
        headers.append(len(handles))
        handles.append(blank(name(args.group, args.labels)))
        for g, c in colours.items():
            handles.append(Line2D([], [], color=c, marker="o", linestyle="none" if marker_only else "-", label=g))
    # With groups, colours are the groups' and a metric needs an entry only to tell it from the
    # others of its panel; without, each metric has a colour. Panels alone name their metric.
    styled = [p for p in panels if len(p.metrics) > 1 or not args.group]
    if styled:
        headers.append(len(handles))
        handles.append(blank("metric"))
        seen = set()  # panels whose metrics share names and styles share entries
        for p in styled:
            for j, m in enumerate(p.metrics):
                if (name(m, args.labels), j) in seen:
                    continue
                seen.add((name(m, args.labels), j))
                colour = "0.2" if args.group else f"C{j % 10}"
                handles.append(Line2D([], [], color=colour, marker=MARKERS[j % len(MARKERS)],
                                      linestyle="none" if marker_only else LINESTYLES[j % len(LINESTYLES)],
                                      label=name(m, args.labels)))
    if refs:
        headers.append(len(handles))
        handles.append(blank("reference"))
        seen = set()
        for r in refs:
            if r.get_label() not in seen:
                seen.add(r.get_label())
                handles.append(r)
    return handles, headers


def group_colours(plt, groups):
    cmap = plt.get_cmap("tab10" if len(groups) <= 10 else "tab20")
    return {g: cmap(k % cmap.N) for k, g in enumerate(groups)}


def render(args, panels, xaxis, groups, out, notes):
    plt, Line2D = import_pyplot()
    cols = min(len(panels), 3)
    rows = (len(panels) + cols - 1) // cols
    width, height = args.size or (5.0 * cols + 2.6, 4.4 * rows)
    fig = plt.figure(figsize=(width, height), dpi=args.dpi)
    grid = fig.add_gridspec(rows, cols + 1, width_ratios=[5.0] * cols + [2.6])
    colours = group_colours(plt, groups)
    refs = []
    for n, p in enumerate(panels):
        refs += draw_panel(fig.add_subplot(grid[n // cols, n % cols]), p, xaxis, args, colours, Line2D)
    side = fig.add_subplot(grid[:, cols])
    side.axis("off")
    handles, headers = legend_entries(args, panels, xaxis, colours, refs, Line2D)
    legend = side.legend(handles=handles, loc="upper left", bbox_to_anchor=(0, 1), frameon=False, fontsize=9,
                         handlelength=2.6)
    for k in headers:
        legend.get_texts()[k].set_fontweight("bold")
    if notes:
        side.text(0, 0, "\n".join(textwrap.fill(n, 34) for n in notes), transform=side.transAxes, va="bottom",
                  fontsize=8, color="0.25")
    fig.suptitle(textwrap.fill(args.title or default_title(args, panels, xaxis), int(width * 11)), fontsize=12)
    fig.tight_layout()
    save_png(fig, out, args.dpi)
    plt.close(fig)


def save_png(fig, out, dpi):
    """Written under a temporary name in the same folder, then renamed: no half-written OUT.png."""
    fd, tmp = tempfile.mkstemp(prefix=".plot-", suffix=".png", dir=os.path.dirname(out) or ".")
    os.close(fd)
    try:
        fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": SOFTWARE})
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def averaging_note(panels):
    counts = sorted({p.n for panel in panels for s in panel.series for p in s.points})
    if counts[-1] == 1:
        return []
    span = f"{counts[0]}" if counts[0] == counts[-1] else f"{counts[0]} to {counts[-1]}"
    return [f"a point is the mean of the rows sharing its x and series ({span} rows); bars: min to max"]


def check_log_scales(args, panels, xaxis):
    if args.logx and xaxis.kind == "category":
        raise PlotError(f"--logx: {args.x} holds names ({', '.join(xaxis.categories)}), not numbers")
    if args.logx and min(xaxis.values.values()) <= 0:
        raise PlotError(f"--logx: {args.x} has values that are not positive")
    for p in panels:
        if p.logy and min(pt.min for s in p.series for pt in s.points) <= 0:
            raise PlotError(f"--logy: {', '.join(p.metrics)} has values that are not positive")


def main(argv):
    args = parse_args(argv)
    table = read_table(args.csv)
    for key, option in [(args.x, "--x"), (args.group, "--group")] + [(m, f"--y {m}") for p in args.panels
                                                                      for m in p.metrics]:
        if key:
            table.column(key, option)
    kept, notes = select_rows(table, args.where)
    xaxis = x_axis(table, kept, args.x)
    groups = group_values(table, kept, args.group) if args.group else [None]
    panels = split_by_unit(args.panels)
    for p in panels:
        for m in p.metrics:
            p.series += build_series(table, kept, xaxis, args.group, groups, m, notes)
    check_log_scales(args, panels, xaxis)
    notes += averaging_note(panels)
    out = args.output or default_output(args, panels)
    check_output(out, explicit=args.output is not None)
    if args.describe:
        describe(args, panels, xaxis, out, notes, len(kept), len(table.rows))
        return 0
    render(args, panels, xaxis, [g for g in groups if any(s.group == g for p in panels for s in p.series)], out, notes)
    npoints = sum(len(s.points) for p in panels for s in p.series)
    print(f"flaresim plot: wrote {out}: {sum(len(p.series) for p in panels)} series, {npoints} points from "
          f"{len(kept)} rows")
    for n in notes:
        print(f"flaresim plot: {n}")
    return 0


def run(argv):
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, stop_on_signal)
    try:
        return main(argv)
    except Interrupted as e:
        return 128 + e.signum
    except PlotError as e:
        print(f"flaresim: {e}", file=sys.stderr)
        return 2
    except MissingDependency as e:
        print(f"flaresim: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
