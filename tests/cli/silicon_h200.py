#!/usr/bin/env python3
"""Replays the five reference traces with an H200 config and prints, per kernel
launch, what an H200 measured (../shared/traces/silicon-h200/, Nsight Compute)
against what gcreplay replays:

  L1 load sectors and hit rate, L1 store sectors, L2 read sectors and hit rate,
  DRAM read sectors.

usage: silicon_h200.py GCREPLAY CONFIG SHARED_DIR [--check] [--set PATH=VALUE]...

Each trace is replayed whole, so a launch sees the L2 its predecessor left:
the silicon figures are those profiled with the L2 kept between launches
(`launches_l2_kept_between`) where the data has them, else the single launch
profiled after a flush. Each launch's shared-memory carve-out is the one the
driver chose on silicon (launch__shared_mem_config_size), passed as
l1d.adaptive.carveout_bytes.

Silicon counts L2 reads from the SMs (lts__t_sectors_srcunit_tex_op_read);
atomics are counted apart (op_atom), as the replay does under
l2.counting "nsight". With --check, exit 1 unless every tolerance holds:
L1 load and store sectors equal; L2 read sectors and DRAM read sectors within
10 %; L1 load hit rate within 3 points on every launch and 1 point on
average; L2 read hit rate within 3 points on every launch; except the
figures listed in KNOWN_GAPS, which must stay out of tolerance.
"""
import json
import os
import subprocess
import sys
import tempfile

WORKLOADS = ["sgemm_tiled", "jacobi2d", "bfs_csr", "stream_triad", "histogram256"]

# Figures examples/configs/h200.json does not bring within tolerance (README,
# "Agreeing with silicon": what is measured and why). --check fails on any
# other figure out of tolerance, and on one of these that comes within it, so
# that the list says what is true.
KNOWN_GAPS = {
    ("jacobi2d#1", "l2_hit"),     # which CTA's read reaches the L2 first: an order of time
}


def silicon_launches(path):
    d = json.load(open(path))
    return d.get("launches_l2_kept_between") or d["launches_l2_flushed_before_each"]


def silicon_row(m):
    def s(k):
        return m[k + ".sum"]
    ld = s("l1tex__t_sectors_pipe_lsu_mem_global_op_ld")
    rd = s("lts__t_sectors_srcunit_tex_op_read")
    return {
        "l1_ld": ld,
        "l1_hit": s("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit") / ld if ld else None,
        "l1_st": s("l1tex__t_sectors_pipe_lsu_mem_global_op_st"),
        "l2_rd": rd,
        "l2_hit": s("lts__t_sectors_srcunit_tex_op_read_lookup_hit") / rd if rd else None,
        "dram_rd": s("dram__sectors_read"),
    }


def replay_rows(gcr, config, trace, carveouts, sets, sector_bytes):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        cmd = [gcr, "run", "-q", "--json-detail", "full", "--config", config, "--json", out,
               "--set", "l1d.adaptive.carveout_bytes=" + json.dumps(carveouts)]
        for s in sets:
            cmd += ["--set", s]
        subprocess.run(cmd + [trace], check=True)
        rep = json.load(open(out))
    rows = []
    for k in rep["kernels"]:
        r1, r2 = k["L1D"]["reads"], k["L2"]["reads"]
        rows.append({
            "l1_ld": r1["accesses"],
            "l1_hit": r1["hits"] / r1["accesses"] if r1["accesses"] else None,
            "l1_st": k["L1D"]["writes"]["accesses"],
            "l2_rd": r2["accesses"],
            "l2_hit": r2["hits"] / r2["accesses"] if r2["accesses"] else None,
            "dram_rd": k["traffic"]["dram_read_bytes"] // sector_bytes,
            "merged": k["L2"].get("coalescer", {}).get("merged_sectors"),
        })
    return rows


def pct(x):
    return "-" if x is None else f"{100 * x:5.1f}"


def main():
    args = sys.argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    sets = []
    while "--set" in args:
        i = args.index("--set")
        sets.append(args[i + 1])
        del args[i:i + 2]
    gcr, config, shared = args
    sector_bytes = json.load(open(config)).get("coalescer", {}).get("sector_bytes", 32)
    print(f"{'kernel':16} {'L1 ld sectors':>17} {'L1 ld hit%':>11} {'L1 st sectors':>17} "
          f"{'L2 rd sectors':>17} {'L2 rd hit%':>11} {'DRAM rd sectors':>17}")
    print(f"{'':16} {'silicon  gcreplay':>17} {'sil.  gcr':>11} {'silicon  gcreplay':>17} "
          f"{'silicon  gcreplay':>17} {'sil.  gcr':>11} {'silicon  gcreplay':>17}")
    failures, l1_errors = [], []
    for w in WORKLOADS:
        sil = silicon_launches(os.path.join(shared, "traces/silicon-h200", w + ".json"))
        carve = [m["launch__shared_mem_config_size"] for m in sil]
        ours = replay_rows(gcr, config, os.path.join(shared, "traces/accelsim", w), carve, sets,
                           sector_bytes)
        if len(ours) != len(sil):
            sys.exit(f"{w}: {len(ours)} kernels replayed, {len(sil)} profiled")
        for i, (m, g) in enumerate(zip(sil, ours)):
            s = silicon_row(m)
            name = f"{w}#{i + 1}"
            print(f"{name:16} {s['l1_ld']:8} {g['l1_ld']:8} {pct(s['l1_hit'])} {pct(g['l1_hit'])} "
                  f"{s['l1_st']:8} {g['l1_st']:8} {s['l2_rd']:8} {g['l2_rd']:8} "
                  f"{pct(s['l2_hit'])} {pct(g['l2_hit'])} {s['dram_rd']:8} {g['dram_rd']:8}")
            for key in ("l1_ld", "l1_st"):
                if s[key] != g[key]:
                    failures.append(((name, key), f"{name}: {key} {g[key]} vs silicon {s[key]}"))
            for key in ("l2_rd", "dram_rd"):
                if abs(g[key] - s[key]) > 0.10 * s[key]:
                    failures.append(((name, key), f"{name}: {key} {g[key]} vs silicon {s[key]} "
                                    f"({100 * (g[key] - s[key]) / s[key]:+.1f} %)"))
            for key, tol in (("l1_hit", 0.03), ("l2_hit", 0.03)):
                if s[key] is None or g[key] is None:
                    continue
                if abs(g[key] - s[key]) > tol:
                    failures.append(((name, key),
                                     f"{name}: {key} {pct(g[key])} vs silicon {pct(s[key])}"))
            if s["l1_hit"] is not None and g["l1_hit"] is not None:
                l1_errors.append(abs(g["l1_hit"] - s["l1_hit"]))
    mean = sum(l1_errors) / len(l1_errors)
    print(f"L1 load hit rate: mean error {100 * mean:.2f} points over {len(l1_errors)} launches")
    if mean > 0.01:
        failures.append((("all", "l1_hit_mean"),
                         f"L1 load hit rate: mean error {100 * mean:.2f} points (at most 1)"))
    bad = False
    for key, text in failures:
        known = key in KNOWN_GAPS
        bad |= not known
        print(("out of tolerance (known): " if known else "OUT OF TOLERANCE: ") + text)
    for key in sorted(KNOWN_GAPS - {k for k, _ in failures}):
        bad = True
        print(f"WITHIN TOLERANCE although listed as a known gap: {key[0]} {key[1]}")
    if check and bad:
        sys.exit(1)


main()
