#!/usr/bin/env python3
"""Validation of the timing backend against Accel-Sim.

usage: timing_validate.py GCREPLAY CONFIG [--max-error PCT] TRACE_DIR...

Replays each Accel-Sim trace directory with `gcreplay run --timing` under
CONFIG (a gcreplay config imported from the GPGPU-Sim config the reference
was produced with, e.g. SM7_QV100 plus -gpgpu_perf_sim_memcpy 0) and compares,
per kernel and for the whole run, the cycles and IPC with the figures
Accel-Sim printed, stored beside the trace in accelsim-qv100.json. IPC is
Accel-Sim's (thread instructions per cycle): ours divides Accel-Sim's thread
instruction count by our cycles, since a trace gives warp instructions only;
its error is therefore the inverse of the cycle error. Prints one line per
kernel and per trace and the mean absolute cycle error; exits 1 when
--max-error is given and some |error| exceeds it.
"""
import json
import os
import subprocess
import sys
import tempfile


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    gcr, config, rest = argv[0], argv[1], argv[2:]
    max_err = None
    if rest[:1] == ["--max-error"]:
        max_err = float(rest[1])
        rest = rest[2:]
    if not rest:
        print("timing_validate.py: no trace directory given", file=sys.stderr)
        return 2
    print(f"{'trace':18} {'kernel':>6} {'cycles':>9} {'accel-sim':>9} {'error':>8} "
          f"{'IPC':>8} {'accel-sim':>9} {'limit':>14}")
    errors, ok = [], True
    with tempfile.TemporaryDirectory() as tmp:
        for d in rest:
            name = os.path.basename(os.path.normpath(d))
            ref = json.load(open(os.path.join(d, "accelsim-qv100.json")))["stats"]
            out = os.path.join(tmp, name + ".json")
            subprocess.run([gcr, "run", "-q", "--timing", "--config", config, "--json", out, d],
                           check=True)
            rep = json.load(open(out))
            rows = [(str(i + 1), k["timing"], rk["gpu_sim_cycle"], rk["gpu_sim_insn"])
                    for i, (k, rk) in enumerate(zip(rep["kernels"], ref["per_kernel"]))]
            rows.append(("all", rep["total"]["timing"], ref["gpu_tot_sim_cycle"],
                         ref["gpu_tot_sim_insn"]))
            for kid, t, ref_cycles, ref_insn in rows:
                err = 100.0 * (t["cycles"] - ref_cycles) / ref_cycles
                ipc, ref_ipc = ref_insn / t["cycles"], ref_insn / ref_cycles
                print(f"{name:18} {kid:>6} {t['cycles']:9d} {ref_cycles:9d} {err:+7.1f}% "
                      f"{ipc:8.2f} {ref_ipc:9.2f} {t['limiting_resource']:>14}")
                if kid == "all":
                    errors.append(abs(err))
                if max_err is not None and abs(err) > max_err:
                    ok = False
    print(f"mean |cycle error| over {len(errors)} traces: {sum(errors) / len(errors):.1f}%")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
