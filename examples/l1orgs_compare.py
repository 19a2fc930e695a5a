#!/usr/bin/env python3
"""L1 organisations side by side on a broadcast-heavy trace (seed 000, seed 003).

Usage: python3 examples/l1orgs_compare.py GCREPLAY [--check] [--ctas N] [TRACE...]

Writes a broadcast-heavy text trace (trace-formats/text) into a temporary
directory: every CTA reads the whole of one 48-KB table (the data every SM
wants a copy of), each of its warps starting at a different place so SMs do
not walk the table in lockstep, and after every fourth table load reads one
line of its own private stream (never reused). It then replays that trace,
and any TRACE given, under the volta80 GPU with each L1 organisation:

  private      examples/configs/volta80.json (one L1 per SM)
  Pr40         examples/configs/volta80-dcl1-pr40.json (DC-L1, 40 private nodes)
  Sh40+C10     examples/configs/volta80-dcl1-sh40-c10.json (10 clusters of 4 nodes)
  Sh40         examples/configs/volta80-dcl1-sh40.json (40 nodes shared by all)
  shared       examples/configs/volta80-shared.json (one home L1 per line)
  dyneb        volta80.json with "organization": "dyneb"
  colab        examples/configs/volta80-colab.json (ownership tables)

with the replication analysis on, and prints per organisation: L1 miss rate
(as seen by the requesting SMs), L2 read requests, copies per resident line
(time-averaged, from the replication analysis) and the most copies any line
had. --check exits 1 unless the seeds' reference trends hold on the generated
trace: shared organisations keep exactly one copy per line; copies fall
Pr40 -> Sh40+C10 -> Sh40; the miss rate falls the same way; COLAB needs fewer
L2 reads than private L1s.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "configs")
ORGS = [
    ("private", "volta80.json", None),
    ("Pr40", "volta80-dcl1-pr40.json", None),
    ("Sh40+C10", "volta80-dcl1-sh40-c10.json", None),
    ("Sh40", "volta80-dcl1-sh40.json", None),
    ("shared", "volta80-shared.json", None),
    ("dyneb", "volta80.json", "dyneb"),
    ("colab", "volta80-colab.json", None),
]
LINE = 128


def write_broadcast(path, ctas, warps=4, table_kb=48):
    lines = table_kb * 1024 // LINE
    per_warp = lines // warps
    out = ["#gcreplay-text 1",
           "# broadcast: every CTA reads one 48-KB table; written by examples/l1orgs_compare.py",
           f"kernel 1 broadcast grid={ctas},1,1 block={32 * warps},1,1 shmem=0 regs=32"]
    for cta in range(ctas):
        for w in range(warps):
            start = (cta * 7) % per_warp
            stream = 0x7F1000000000 + (cta * warps + w) * per_warp * LINE
            for i in range(per_warp):
                t = w * per_warp + (start + i) % per_warp
                out.append(f"{cta} {w} compute 4")
                out.append(f"{cta} {w} 0x100 load global 4 0xffffffff {0x7F0000000000 + t * LINE:#x}+4")
                if i % 4 == 3:
                    out.append(f"{cta} {w} 0x110 load global 4 0xffffffff {stream + i * LINE:#x}+4")
    out.append("end 1")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def replay(gcreplay, tmp, name, config, org, trace):
    cfg = json.load(open(os.path.join(CONFIGS, config)))
    if org:
        cfg["l1d"]["organization"] = org
    cfg["analyses"] = {"replication": {}}
    cfg_path = os.path.join(tmp, f"{name}.json")
    json.dump(cfg, open(cfg_path, "w"))
    out = os.path.join(tmp, f"{name}-report.json")
    subprocess.run([gcreplay, "run", "-q", "--config", cfg_path, "--json", out, trace],
                   check=True)
    t = json.load(open(out))["total"]
    rep = t["analyses"]["replication"]
    return {"miss_rate": t["L1D"]["miss_rate"], "l2_reads": t["L2"]["reads"]["accesses"],
            "copies": rep["copies_per_resident_line"], "max_copies": rep["max_copies"]}


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    gcreplay, check, ctas, traces = args[0], False, 320, []
    rest = args[1:]
    while rest:
        a = rest.pop(0)
        if a == "--check":
            check = True
        elif a == "--ctas":
            ctas = int(rest.pop(0))
        else:
            traces.append(a)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        bc = os.path.join(tmp, "broadcast.txt")
        write_broadcast(bc, ctas)
        for label, trace in [("broadcast (generated)", bc)] + [(t, t) for t in traces]:
            print(f"trace: {label}")
            print(f"  {'organisation':<10} {'L1 miss%':>8} {'L2 reads':>9} {'copies':>7} {'max':>4}")
            res = {}
            for name, config, org in ORGS:
                r = res[name] = replay(gcreplay, tmp, name, config, org, trace)
                print(f"  {name:<10} {100 * r['miss_rate']:8.2f} {r['l2_reads']:9d} "
                      f"{r['copies']:7.3f} {r['max_copies']:4d}")
            if trace != bc:
                continue
            for sh in ("Sh40", "shared"):
                if res[sh]["max_copies"] != 1:
                    failures.append(f"{sh} keeps more than one copy of a line")
            if not res["Pr40"]["copies"] > res["Sh40+C10"]["copies"] > res["Sh40"]["copies"]:
                failures.append("copies do not fall Pr40 -> Sh40+C10 -> Sh40")
            if not (res["Pr40"]["miss_rate"] > res["Sh40+C10"]["miss_rate"]
                    > res["Sh40"]["miss_rate"]):
                failures.append("the miss rate does not fall Pr40 -> Sh40+C10 -> Sh40")
            if not res["colab"]["l2_reads"] < res["private"]["l2_reads"]:
                failures.append("COLAB does not cut L2 read requests")
    for f in failures:
        print("trend broken:", f)
    return 1 if check and failures else 0


if __name__ == "__main__":
    sys.exit(main())
