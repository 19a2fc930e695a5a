"""What the benchmark scripts of this folder share: the traces `gcreplay bench
--keep` writes, one timed replay, and one replay's callgrind event counts.
Each failure ends the script with a message that starts with its name (who)."""
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def bench_traces(gcreplay, instructions, work, config=None):
    """Writes the typical bench trace of `instructions` warp memory instructions
    and the one a quarter as long into work; (full, quarter) paths."""
    cmd = [gcreplay, "bench", "--instructions", str(instructions), "--keep", work]
    if config:
        cmd += ["--config", config]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return (os.path.join(work, f"bench-typical-{instructions}.gcrt"),
            os.path.join(work, f"bench-typical-{instructions // 4}.gcrt"))


def timed_command(who, cmd):
    """(wall seconds, CPU seconds (user + system), peak RSS in MB) of one command, from
    wait4: its CPU time includes that of the processes it waited for (a sweep's replays)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit(f"{who}: {' '.join(cmd)} failed (status {status})")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def timed_replay(who, gcreplay, cfg, trace, extra=()):
    """timed_command of one `gcreplay run -q` replay."""
    return timed_command(who, [gcreplay, "run", "-q", *extra, "--config", cfg, trace])


def readme_sweep(gcreplay, out, shared, options=()):
    """The command line of the README's sweep ("A worked screening"): the example traces
    and the reference Accel-Sim traces, four L1 organisations of volta80 x two L1 sizes,
    the replication analysis on; options go before the configs."""
    cmd = [gcreplay, "sweep", "-q", *options, "--set", "analyses.replication={}",
           "--vary", "l1d.ways=256,64"]
    for c in ("volta80.json", "volta80-shared.json", "volta80-dcl1-sh40-c10.json",
              "volta80-colab.json"):
        cmd += ["-c", os.path.join(ROOT, "examples", "configs", c)]
    return cmd + ["-o", out, os.path.join(ROOT, "examples", "traces"),
                  os.path.join(shared, "traces", "accelsim")]


def callgrind_events(who, cmd, work, valgrind_options=()):
    """The event counts callgrind collected over one run of cmd (Ir first, then
    the cache simulation's when valgrind_options ask for it)."""
    out = os.path.join(work, "callgrind.out")
    r = subprocess.run(["valgrind", "--tool=callgrind", *valgrind_options,
                        f"--callgrind-out-file={out}", *cmd],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"{who}: callgrind run of {' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
    os.unlink(out)
    m = re.search(r"Collected\s*:\s*([\d ]+)", r.stderr)
    if not m:
        sys.exit(f"{who}: callgrind printed no event counts for {' '.join(cmd)}")
    return [int(x) for x in m.group(1).split()]


def binary_of(who, spec, label, work, buildtype="release"):
    """A gcreplay binary for spec: the file itself, or the build of a git revision
    of this repository (exported with `git archive` into work and built there, so
    the work tree is not touched)."""
    if os.path.isfile(spec):
        if not os.access(spec, os.X_OK):
            sys.exit(f"{who}: {label}: {spec} is not executable")
        return os.path.abspath(spec)
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "--quiet",
                          spec + "^{commit}"], capture_output=True, text=True)
    if rev.returncode != 0:
        sys.exit(f"{who}: {label}: {spec} is neither a file nor a git revision of {ROOT}")
    commit = rev.stdout.strip()
    src = os.path.join(work, f"src-{label}")
    bld = os.path.join(work, f"build-{label}")
    os.makedirs(src)
    archive = subprocess.Popen(["git", "-C", ROOT, "archive", commit], stdout=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", src], stdin=archive.stdout)
    archive.stdout.close()
    if archive.wait() != 0 or untar.returncode != 0:
        sys.exit(f"{who}: {label}: could not export revision {spec}")
    print(f"building {label} = {spec} ({commit[:10]}), --buildtype {buildtype} ...",
          file=sys.stderr, flush=True)
    for cmd in (["meson", "setup", bld, src, f"--buildtype={buildtype}"],
                ["ninja", "-C", bld, "src/gcreplay"]):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{who}: {label}: {' '.join(cmd)} failed:\n{r.stdout[-2000:]}"
                     f"{r.stderr[-2000:]}")
    return os.path.join(bld, "src", "gcreplay")
