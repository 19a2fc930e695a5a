#!/usr/bin/env python3
"""Compares a gcreplay report with the statistics Accel-Sim printed for the same
trace (accelsim-qv100.json) and prints one line per figure. Exit 1 when

- an L1D access count (global reads, global writes) differs: these depend only
  on the trace and the coalescing rules;
- an L2 access count differs by 0.5 % or more: L2 accesses are L1 misses plus
  write-throughs and atomics, so they inherit the L1 miss differences that
  Accel-Sim's timing (warp issue order, in-flight lines) causes and a
  functional model cannot reproduce;
- a miss rate is off by 2 percentage points or more.

Accel-Sim counts (GPGPU-Sim 4.x, sectored Volta caches): one access per 32-B
sector; TOTAL_ACCESS excludes reservation failures (retries of the same
access); HIT_RESERVED / MSHR_HIT are accesses to a line still in flight, which
a functional model, without in-flight state, counts as hits. At L2, atomics are
GLOBAL_ACC_R accesses.
"""
import json
import sys

report_path, ref_path, name = sys.argv[1:4]
rep = json.load(open(report_path))["total"]
ref = json.load(open(ref_path))["stats"]
ok = True


def ref_counts(breakdown, kind):
    b = breakdown.get(kind, {})
    total = b.get("TOTAL_ACCESS", 0)
    misses = b.get("MISS", 0) + b.get("SECTOR_MISS", 0)
    return total, misses


def line(level, what, ours, theirs, exact):
    global ok
    if exact is True:
        good = ours == theirs
        text = f"{ours} vs {theirs}"
    elif exact:  # a relative tolerance
        good = abs(ours - theirs) <= exact * max(theirs, 1)
        text = f"{ours} vs {theirs}" + ("" if ours == theirs else
                                         f" ({100 * (ours - theirs) / max(theirs, 1):+.2f}%)")
    else:
        good = ours is not None and theirs is not None and abs(ours - theirs) < 0.02
        text = ("-" if ours is None else f"{100 * ours:.2f}%") + " vs " + \
            ("-" if theirs is None else f"{100 * theirs:.2f}%")
    ok &= good
    print(f"{name:18} {level:4} {what:16} {text:28} {'ok' if good else 'DIFFERS'}")


for level, key, bd in (("L1D", "L1D", "l1d_breakdown"), ("L2", "L2", "l2_breakdown")):
    ours = rep[key]
    acc, mis = 0, 0
    for kind, side in (("GLOBAL_ACC_R", "reads"), ("GLOBAL_ACC_W", "writes")):
        t, m = ref_counts(ref[bd], kind)
        line(level, side + " accesses", ours[side]["accesses"], t,
             True if level == "L1D" else 0.005)
        acc += t
        mis += m
    rate = mis / acc if acc else None
    line(level, "miss rate", ours["miss_rate"], rate, False)

sys.exit(0 if ok else 1)
