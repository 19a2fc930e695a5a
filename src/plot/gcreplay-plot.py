#!/usr/bin/env python3
"""The plots of a gcreplay report or sweep (gcreplay plot; README, "Plots").

usage: gcreplay-plot.py [--metric METRIC] -o OUTDIR (REPORT.json | SWEEP_DIR)

`gcreplay plot` runs this program with the Python interpreter it was built with
(one that has matplotlib). For every plot it writes NAME.png, NAME.svg and
NAME.json, the series it drew (what a test or a script can check against the
report), and at the end OUTDIR/index.html, which shows them all.

From a report (`gcreplay run --json`):
  mrc           miss-ratio curves of the reuse_distance analysis: the global
                stream, and each SM's when the report has them (--json-detail full)
  kernels       L1D and L2 miss rates per kernel (two kernels or more)
  replication   replication ratio and L1 copies per line per kernel
                (replication analysis)
  sac           SAC's effective available bandwidths per kernel, memory-side and
                SM-side, and the organisation it picks (several chips)
From a sweep's folder (`gcreplay sweep -o DIR`):
  heatmap-METRIC  traces x variants: each variant's change from the baseline
                in METRIC (default: the sweep's --rank-by), the value written in
                each cell
  replication   replication ratio and copies per line per trace and variant
  and the report plots above of each trace under the baseline variant, named
  NAME-TRACE.

Exit status: 0, 1 when the input is not a report or a sweep (the message says
why), 2 for a wrong command line.
"""
import argparse
import csv
import html
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Every figure has this size: 800 x 450 pixels in PNG, 576 x 324 points in SVG.
WIDTH_IN, HEIGHT_IN, DPI = 8.0, 4.5, 100
# Metrics of a sweep's summary.csv where less is better (the heatmap's colours follow).
HIGHER_IS_BETTER = {"ipc", "l1d_hits"}


class Fail(Exception):
    """A message for the user, and exit status 1."""


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise Fail(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise Fail(f"{path}:{e.lineno}:{e.colno}: not JSON: {e.msg}")


class Output:
    """Writes the plots into a folder and remembers them for index.html."""

    def __init__(self, outdir):
        self.outdir = outdir
        self.plots = []
        os.makedirs(outdir, exist_ok=True)

    def save(self, fig, name, title, data):
        data = dict(data, plot=name, title=title)
        for ext in ("png", "svg"):
            path = os.path.join(self.outdir, f"{name}.{ext}")
            tmp = path + ".tmp"
            fig.savefig(tmp, format=ext, dpi=DPI)
            os.replace(tmp, path)
        plt.close(fig)
        path = os.path.join(self.outdir, f"{name}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        os.replace(path + ".tmp", path)
        self.plots.append((name, title))

    def index(self, heading):
        rows = "\n".join(
            f'<figure><img src="{html.escape(n)}.png" alt="{html.escape(t)}" width="800" '
            f'height="450"><figcaption>{html.escape(t)} (<a href="{html.escape(n)}.svg">SVG'
            f'</a>, <a href="{html.escape(n)}.json">data</a>)</figcaption></figure>'
            for n, t in self.plots)
        page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>"
                f"{html.escape(heading)}</title>\n<style>body {{ font-family: sans-serif; }} "
                "figure { margin: 1em 0; }</style></head>\n<body>\n"
                f"<h1>{html.escape(heading)}</h1>\n{rows}\n</body></html>\n")
        path = os.path.join(self.outdir, "index.html")
        with open(path + ".tmp", "w") as f:
            f.write(page)
        os.replace(path + ".tmp", path)


def figure():
    return plt.subplots(figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI, layout="constrained")


def kernel_label(k):
    return f"{k.get('id')}"


# ---- Plots of one report ----------------------------------------------------------------------


def plot_mrc(out, report, name, label):
    rd = report.get("total", {}).get("analyses", {}).get("reuse_distance")
    if not rd or not rd.get("global", {}).get("mrc"):
        return
    unit = "sectors" if rd.get("granularity") == "sector" else "lines"
    fig, ax = figure()
    series = {}
    for i, sm in enumerate(rd.get("per_sm", [])):
        xs = [p["lines"] for p in sm["mrc"]]
        ys = [p["miss_ratio"] for p in sm["mrc"]]
        series[f"sm{i}"] = ys
        ax.plot(xs, ys, color="0.75", linewidth=0.6)
    xs = [p["lines"] for p in rd["global"]["mrc"]]
    ys = [p["miss_ratio"] for p in rd["global"]["mrc"]]
    series = {"global": ys, **series}
    ax.plot(xs, ys, color="C0", linewidth=2, marker="o", label="all SMs")
    if rd.get("per_sm"):
        ax.plot([], [], color="0.75", linewidth=0.6, label="one SM each")
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("LRU cache size (lines)")
    ax.set_ylabel("miss ratio")
    ax.legend()
    title = f"Miss-ratio curves{label}"
    ax.set_title(title)
    out.save(fig, name, title, {"x": xs, "x_unit": "lines", "key_unit": unit,
                                "series": series})


def bars(ax, labels, groups, names):
    """Grouped bars: groups[g][i] for label i; one colour per group."""
    n = len(groups)
    width = 0.8 / max(n, 1)
    for g, (values, gname) in enumerate(zip(groups, names)):
        xs = [i - 0.4 + width * (g + 0.5) for i in range(len(labels))]
        ax.bar(xs, [v if v is not None else 0 for v in values], width, label=gname)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=30 if len(labels) > 8 else 0, ha="right"
                       if len(labels) > 8 else "center")


def plot_kernels(out, report, name, label):
    ks = report.get("kernels") or []
    if len(ks) < 2:
        return
    labels = [kernel_label(k) for k in ks]
    l1 = [k["L1D"].get("miss_rate") for k in ks]
    l2 = [k["L2"].get("miss_rate") for k in ks]
    fig, ax = figure()
    bars(ax, labels, [l1, l2], ["L1D miss rate", "L2 miss rate"])
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("kernel")
    ax.set_ylabel("miss rate")
    ax.legend()
    title = f"Miss rates per kernel{label}"
    ax.set_title(title)
    out.save(fig, name, title, {"x": labels, "series": {"l1d_miss_rate": l1, "l2_miss_rate": l2}})


def replication_of(period):
    r = period.get("analyses", {}).get("replication")
    if not r:
        return None, None
    return r["replication_ratio"]["all"], r["copies_per_line"]


def two_axes_bars(out, name, title, labels, ratio, copies, xlabel, data):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(WIDTH_IN, HEIGHT_IN), dpi=DPI,
                                 layout="constrained")
    a1.bar(range(len(labels)), [v or 0 for v in ratio], color="C1")
    a1.set_ylim(0, 1.0)
    a1.set_ylabel("replication ratio")
    a2.bar(range(len(labels)), [v or 0 for v in copies], color="C2")
    a2.set_ylabel("L1 copies per line")
    for a in (a1, a2):
        a.set_xticks(range(len(labels)))
        a.set_xticklabels(labels, rotation=60 if len(labels) > 4 else 0,
                          ha="right" if len(labels) > 4 else "center", fontsize=7)
        a.set_xlabel(xlabel)
    fig.suptitle(title)
    out.save(fig, name, title, data)


def plot_replication(out, report, name, label):
    ks = report.get("kernels") or []
    if not ks or replication_of(ks[0])[0] is None:
        return
    labels = [kernel_label(k) for k in ks]
    ratio = [replication_of(k)[0] for k in ks]
    copies = [replication_of(k)[1] for k in ks]
    title = f"Replication per kernel{label}"
    two_axes_bars(out, name, title, labels, ratio, copies, "kernel",
                  {"x": labels, "series": {"replication_ratio": ratio, "copies_per_line": copies}})


def plot_sac(out, report, name, label):
    ks = report.get("kernels") or []
    sacs = [k.get("multichip", {}).get("sac", {}).get("kernel") for k in ks]
    if not ks or not all(sacs):
        return
    labels = [kernel_label(k) for k in ks]
    mem = [s["eab_memory_side"]["total"] for s in sacs]
    sm = [s["eab_sm_side"]["total"] for s in sacs]
    choice = [s["choice"] for s in sacs]
    fig, ax = figure()
    bars(ax, labels, [mem, sm], ["memory-side LLC", "SM-side LLC"])
    for i, c in enumerate(choice):
        top = max(mem[i], sm[i])
        ax.annotate("picks " + ("SM-side" if c == "sm_side" else "memory-side"), (i, top),
                    ha="center", va="bottom", fontsize=8)
    theta = report.get("config", {}).get("chips", {}).get("eab", {}).get("theta")
    ax.set_xlabel("kernel" + (f" (SM-side is picked when its EAB > (1 + {theta:g}) x "
                              "memory-side's)" if theta is not None else ""))
    ax.set_ylabel("effective available bandwidth (bytes/cycle)")
    ax.legend(loc="lower right")
    title = f"SAC's EAB model per kernel{label}"
    ax.set_title(title)
    out.save(fig, name, title, {"x": labels, "series": {"eab_memory_side": mem,
                                                        "eab_sm_side": sm}, "choice": choice})


def report_plots(out, report, suffix="", label=""):
    plot_mrc(out, report, "mrc" + suffix, label)
    plot_kernels(out, report, "kernels" + suffix, label)
    plot_replication(out, report, "replication" + suffix, label)
    plot_sac(out, report, "sac" + suffix, label)


# ---- Plots of a sweep -------------------------------------------------------------------------


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def plot_heatmap(out, plan, rows, metric):
    traces = sorted(t["id"] for t in plan["traces"])
    variants = [v["id"] for v in plan["variants"]]
    value = {(r["trace"], r["variant"]): number(r[metric]) for r in rows}
    change = []
    for t in traces:
        base = value.get((t, variants[0]))
        line = []
        for v in variants:
            x = value.get((t, v))
            line.append(None if x is None or base is None or base == 0
                        else 100.0 * (x - base) / base)
        change.append(line)
    fig, ax = figure()
    better_low = metric not in HIGHER_IS_BETTER
    finite = [abs(c) for line in change for c in line if c is not None]
    span = max(finite) if finite and max(finite) > 0 else 1.0
    grid = [[math.nan if c is None else c for c in line] for line in change]
    im = ax.imshow(grid, cmap="RdYlGn_r" if better_low else "RdYlGn", vmin=-span, vmax=span,
                   aspect="auto")
    ax.set_xticks(range(len(variants)))
    ax.set_xticklabels([f"v{i + 1}" for i in range(len(variants))])
    ax.set_yticks(range(len(traces)))
    ax.set_yticklabels(traces, fontsize=7)
    if len(traces) * len(variants) <= 200:
        for i, line in enumerate(change):
            for j, c in enumerate(line):
                ax.text(j, i, "-" if c is None else f"{c:+.0f}", ha="center", va="center",
                        fontsize=6)
    fig.colorbar(im, ax=ax, label=f"{metric}: change from the baseline (%)")
    ax.set_xlabel("variant (v1: the baseline; summary.txt names them)")
    title = f"{metric} of each variant against the baseline"
    ax.set_title(title)
    out.save(fig, f"heatmap-{metric}", title,
             {"traces": traces, "variants": variants, "metric": metric,
              "values": [[value.get((t, v)) for v in variants] for t in traces],
              "change_percent": change})


def plot_sweep_replication(out, plan, rows):
    if not any(r["replication_ratio"] for r in rows):
        return
    labels, ratio, copies = [], [], []
    order = {v["id"]: i for i, v in enumerate(plan["variants"])}
    for r in sorted(rows, key=lambda r: (r["trace"], order.get(r["variant"], 0))):
        labels.append(f"{r['trace']} v{order.get(r['variant'], 0) + 1}")
        ratio.append(number(r["replication_ratio"]))
        copies.append(number(r["copies_per_line"]))
    title = "Replication per trace and variant"
    two_axes_bars(out, "replication", title, labels, ratio, copies, "trace and variant",
                  {"x": labels, "series": {"replication_ratio": ratio,
                                           "copies_per_line": copies}})


def sweep_plots(out, folder, metric):
    plan = load_json(os.path.join(folder, "sweep.json"))
    try:
        with open(os.path.join(folder, "summary.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise Fail(f"{folder}/summary.csv: {e.strerror} (gcreplay sweep --collect {folder} "
                   "writes it)")
    metric = metric or plan.get("rank_by", "l2_accesses")
    if rows and metric not in rows[0]:
        raise Fail(f"--metric {metric}: not a column of summary.csv")
    if not plan.get("variants") or not plan.get("traces"):
        raise Fail(f"{folder}/sweep.json: a plan with no trace or no variant")
    plot_heatmap(out, plan, rows, metric)
    plot_sweep_replication(out, plan, rows)
    baseline = plan["variants"][0]["id"]
    for t in sorted(plan["traces"], key=lambda t: t["id"]):
        path = os.path.join(folder, "runs", t["id"], baseline + ".json")
        if os.path.exists(path):
            report_plots(out, load_json(path), "-" + t["id"], f": {t['id']}, {baseline}")
    return f"gcreplay sweep {folder}"


def main(argv):
    ap = argparse.ArgumentParser(prog="gcreplay plot", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", required=True, help="folder for the plots")
    ap.add_argument("--metric", help="the heatmap's summary.csv column (sweeps)")
    ap.add_argument("input", help="a report (run --json) or a sweep's folder")
    a = ap.parse_args(argv)
    out = Output(a.output)
    if os.path.isdir(a.input):
        if not os.path.exists(os.path.join(a.input, "sweep.json")):
            raise Fail(f"{a.input}: a folder without sweep.json: not a sweep's folder")
        heading = sweep_plots(out, a.input, a.metric)
    else:
        report = load_json(a.input)
        if not isinstance(report, dict) or "total" not in report:
            raise Fail(f"{a.input}: not a gcreplay report (it has no \"total\")")
        report_plots(out, report)
        heading = f"gcreplay report {a.input}"
    out.index(heading)
    for name, title in out.plots:
        print(f"{os.path.join(a.output, name)}.png  {title}")
    if not out.plots:
        print(f"gcreplay plot: {a.input} has nothing to plot (no reuse_distance or replication "
              "analysis, one kernel, one chip)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Fail as e:
        print(f"gcreplay: {e}", file=sys.stderr)
        sys.exit(1)
