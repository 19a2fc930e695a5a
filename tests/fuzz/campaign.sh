#!/usr/bin/env bash
# A fuzzing campaign over every libFuzzer target, outside the test suite.
#
#   tests/fuzz/campaign.sh [-b BUILD] [-w WORK] [-t SECONDS] [-j JOBS] [TARGET...]
#   tests/fuzz/campaign.sh -m [-b BUILD] [-w WORK] [-c CAP] [TARGET...]
#   tests/fuzz/campaign.sh -s [-b BUILD] [-w WORK] [-t SECONDS] [TARGET...]
#
# The first form fuzzes each target (default: all of them) for SECONDS (default 3600) of wall
# time, JOBS targets at a time (default 1: a target then uses one core, so its CPU time is
# about its wall time). It starts from the committed corpus (tests/fuzz/corpus/<target>/) and
# from seeds made from the fixtures and examples (WORK/<target>/seeds/), and keeps what it
# finds in WORK/<target>/corpus/, so that a later campaign goes on from there. A crash, a
# sanitizer report, a leak, a timeout or running out of memory is kept as an input in
# WORK/<target>/artifacts/, and the campaign goes on.
# Each input may take 10 s and 2 GiB at most, as in the test suite (bounded_run.sh). At the
# end it prints, per target, the executions, their rate, the CPU time, the corpus size and
# the failures, then runs each failing input again for its report, and exits 1 if there was
# any failure.
#
# The second form (-m) minimises the committed corpus, the campaign's and the seeds into
# tests/fuzz/corpus/<target>/, replacing what is there: libFuzzer's -merge=1 keeps the fewest
# inputs that reach every edge the others reach, and of those the corpus keeps the CAP
# (-c, default 40) that between them reach the most. Review the change before committing it.
#
# The third form (-s) prints the summary of the last campaign in WORK again (of SECONDS).
#
# BUILD is a clang build of gcreplay (default: build-tests/fuzz, which tests/run.sh makes);
# WORK is outside the source tree (default: ${TMPDIR:-/tmp}/gcreplay-fuzz). Reproduce an
# artifact with BUILD/tests/fuzz/<target> ARTIFACT, or without libFuzzer with
# BUILD/tests/fuzz/<target>-replay ARTIFACT.
set -u
cd "$(dirname "$0")/../.."
src=$PWD
build=build-tests/fuzz
work=${TMPDIR:-/tmp}/gcreplay-fuzz
seconds=3600
jobs=1
minimise=false
summary_only=false
corpus_cap=40
all_targets="fuzz-engine-text fuzz-engine-gcrt fuzz-engine-accelsim fuzz-config fuzz-import
             fuzz-gcrt fuzz-accelsim"

usage() {
  sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
while getopts "b:w:t:j:c:msh" opt; do
  case $opt in
  b) build=$OPTARG ;;
  w) work=$OPTARG ;;
  t) seconds=$OPTARG ;;
  j) jobs=$OPTARG ;;
  c) corpus_cap=$OPTARG ;;
  m) minimise=true ;;
  s) summary_only=true ;;
  *) usage ;;
  esac
done
shift $((OPTIND - 1))
targets=${*:-$all_targets}
case $work in "$src"/*) echo "WORK must be outside the source tree" >&2; exit 2 ;; esac
for t in $targets; do
  [ -x "$build/tests/fuzz/$t" ] || { echo "no $build/tests/fuzz/$t: build with clang first" >&2; exit 2; }
done

# ---- Seeds: the fixtures and examples, in each target's input layout -------------------------

sep=$'\n=====\n' # between the files of one input (trace-formats/accelsim/fuzz_engine.c, fuzz_import.c)

# Engine inputs start with a byte choosing the config and the replay's mode (fuzz_util.h). A
# trace goes in with every config, plain and with timing, a kernel sink and queue prefetch,
# and with the first config also with the analysis thread and L1 prefetch; a bad trace, which
# fails before the replay, with the first config only.
with_modes() { # file out-prefix [first]
  local b
  for b in 0x00 0x58 0xa0 1 0x59 2 0x5a 3 0x5b 4 0x5c 5 0x5d 6 0x5e 7 0x5f; do
    { printf "\\x$(printf %02x $((b)))"; cat "$1"; } >"$2-$b"
    [ $# -lt 3 ] || return 0
  done
}

# An Accel-Sim kernel list and its kernel files as one input: the list with its kernel files
# renamed kernel-1.traceg, kernel-2.traceg... in order, then each file's bytes.
list_input() { # dir
  local dir=$1 k=0 line f
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in kernel*) k=$((k + 1)); echo "kernel-$k.traceg" ;; *) echo "$line" ;; esac
  done <"$dir/kernelslist.g"
  while IFS= read -r line || [ -n "$line" ]; do
    # A kernel file the list names but lacks (a bad fixture) stays missing.
    f=$dir/${line%%[[:space:]]*}
    case $line in kernel*) [ ! -f "$f" ] || { printf '%s' "$sep"; cat "$f"; } ;; esac
  done <"$dir/kernelslist.g"
}

make_seeds() { # target dir
  local t=$1 out=$2 f n=0
  rm -rf "$out" && mkdir -p "$out"
  case $t in
  fuzz-engine-text)
    for f in examples/traces/stencil.txt trace-formats/text/fixtures/valid-*.txt; do
      n=$((n + 1)); with_modes "$f" "$out/$n"
    done
    for f in trace-formats/text/fixtures/bad-*.txt; do n=$((n + 1)); with_modes "$f" "$out/$n" 1; done ;;
  fuzz-engine-gcrt)
    for f in examples/traces/stencil.txt trace-formats/text/fixtures/valid-*.txt; do
      n=$((n + 1))
      "$build/src/gcreplay" convert --level 0 --block-bytes 4096 "$f" "$work/$t/plain.gcrt" \
        2>/dev/null && with_modes "$work/$t/plain.gcrt" "$out/$n-plain"
      "$build/src/gcreplay" convert "$f" "$work/$t/zstd.gcrt" 2>/dev/null &&
        with_modes "$work/$t/zstd.gcrt" "$out/$n-zstd"
    done
    rm -f "$work/$t/plain.gcrt" "$work/$t/zstd.gcrt"
    for f in trace-formats/gcrt/fixtures/ok-*.gcrt; do n=$((n + 1)); with_modes "$f" "$out/$n"; done
    for f in trace-formats/gcrt/fixtures/*.gcrt; do
      case $f in */ok-*) ;; *) n=$((n + 1)); with_modes "$f" "$out/$n" 1 ;; esac
    done ;;
  fuzz-engine-accelsim)
    for f in trace-formats/accelsim/fixtures/ok-*.traceg*; do
      n=$((n + 1)); with_modes "$f" "$out/$n"
    done
    for f in trace-formats/accelsim/fixtures/bad-*.traceg*; do
      n=$((n + 1)); with_modes "$f" "$out/$n" 1
    done
    for d in trace-formats/accelsim/fixtures/*/; do
      [ -f "$d/kernelslist.g" ] || continue
      n=$((n + 1)); list_input "$d" >"$work/$t/list"; with_modes "$work/$t/list" "$out/$n"
    done
    rm -f "$work/$t/list" ;;
  fuzz-config)
    cp examples/configs/*.json "$out/"
    for f in tests/cli/configs/*.json; do cp "$f" "$out/cli-${f##*/}"; done ;;
  fuzz-import)
    for d in ../shared/gpgpusim-configs/*/; do
      [ -f "$d/gpgpusim.config" ] || continue
      n=$((n + 1)); cp "$d/gpgpusim.config" "$out/$n"
      [ -f "$d/trace.config" ] &&
        { cat "$d/gpgpusim.config"; printf '%s' "$sep"; cat "$d/trace.config"; } >"$out/$n-trace"
    done ;;
  fuzz-gcrt) cp trace-formats/gcrt/fixtures/*.gcrt "$out/" ;;
  fuzz-accelsim) cp trace-formats/accelsim/fixtures/*.traceg* "$out/" ;;
  esac
}

for t in $targets; do
  mkdir -p "$work/$t/corpus" "$work/$t/artifacts" "$src/tests/fuzz/corpus/$t"
  $summary_only || make_seeds "$t" "$work/$t/seeds"
done

# ---- Minimise into the committed corpus --------------------------------------------------------

# The inputs of dir (a merged corpus) that between them reach the most edges, at most cap of
# them: each input's edges on its own (a merge of it alone), then, greedily, the input that adds
# the most edges not yet reached (the smaller on a tie), until cap inputs or none adds any.
# Prints their names.
pick_inputs() { # fuzzer dir cap
  python3 - "$@" <<'PY'
import os, subprocess, sys, tempfile
fuzzer, corpus, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])
edges = {}
for name in sorted(os.listdir(corpus)):
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(d + "/in")
        os.mkdir(d + "/out")
        os.symlink(os.path.join(corpus, name), d + "/in/" + name)
        subprocess.run([fuzzer, "-merge=1", "-use_counters=0", "-timeout=10",
                        "-rss_limit_mb=2048", "-merge_control_file=" + d + "/control",
                        d + "/out", d + "/in"], capture_output=True)
        edges[name] = set()
        for line in open(d + "/control"):
            if line.startswith("COV "):
                edges[name].update(line.split()[2:])
reached, picked = set(), []
while len(picked) < cap:
    best = max(edges, key=lambda n: (len(edges[n] - reached),
                                     -os.path.getsize(os.path.join(corpus, n))), default=None)
    if best is None or not edges[best] - reached:
        break
    picked.append(best)
    reached |= edges.pop(best)
print("\n".join(picked))
PY
}

if $minimise; then
  for t in $targets; do
    merged=$work/$t/merged
    rm -rf "$merged" && mkdir -p "$merged"
    "$build/tests/fuzz/$t" -merge=1 -use_counters=0 -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$work/$t/artifacts/merge-" "$merged" \
      "$src/tests/fuzz/corpus/$t" "$work/$t/corpus" "$work/$t/seeds" >"$work/$t/merge.log" 2>&1 ||
      { tail -20 "$work/$t/merge.log"; echo "$t: merge failed" >&2; exit 1; }
    picked=$(pick_inputs "$build/tests/fuzz/$t" "$merged" "$corpus_cap") || exit 1
    rm -f "$src/tests/fuzz/corpus/$t"/*
    for f in $picked; do cp "$merged/$f" "$src/tests/fuzz/corpus/$t/"; done
    echo "$t: $(ls "$src/tests/fuzz/corpus/$t" | wc -l) of $(ls "$merged" | wc -l) inputs," \
      "$(cat "$src/tests/fuzz/corpus/$t"/* | wc -c) bytes"
  done
  exit 0
fi

# ---- The campaign ------------------------------------------------------------------------------

# In fork mode (one job at a time), libFuzzer goes on after a crash, a timeout or running out
# of memory, keeping the input: one bug does not end the campaign, and every bug is reported.
run_one() { # target
  local t=$1 dir=$work/$1
  # bash's time gives the CPU time of libFuzzer and its jobs (and of the analysis thread).
  { TIMEFORMAT='cpu %U %S'; time "$build/tests/fuzz/$t" -fork=1 -ignore_crashes=1 \
      -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$seconds" -rss_limit_mb=2048 \
      -timeout=10 -artifact_prefix="$dir/artifacts/" \
      "$dir/corpus" "$src/tests/fuzz/corpus/$t" "$dir/seeds" >"$dir/log" 2>&1; } 2>"$dir/time"
}

running=0
$summary_only && targets_to_run= || targets_to_run=$targets
for t in $targets_to_run; do
  echo "$(date +%H:%M:%S) $t: ${seconds}s"
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

# The summary. libFuzzer's last progress line gives the executions ("#<n>: cov: ..."); the
# failures are the inputs kept in artifacts/, named by kind (crash-, leak-, timeout-, oom-).
status=0
printf '\n%-22s %12s %8s %8s %8s %6s %6s %8s %6s\n' target executions exec/s "cpu s" corpus \
  crash leak timeout oom
for t in $targets; do
  dir=$work/$t
  execs=$(grep -E '^#[0-9]+:' "$dir/log" | tail -1 | sed -E 's/^#([0-9]+):.*/\1/')
  cpu=$(awk '/^cpu/ {printf "%.0f", $2 + $3}' "$dir/time")
  kinds=()
  for k in crash leak timeout oom; do kinds+=("$(ls "$dir/artifacts" | grep -c "^$k-")"); done
  printf '%-22s %12s %8s %8s %8s %6s %6s %8s %6s\n' "$t" "${execs:-?}" \
    "$(( ${execs:-0} / (seconds > 0 ? seconds : 1) ))" "$cpu" "$(ls "$dir/corpus" | wc -l)" \
    "${kinds[@]}"
  [ -z "$(ls "$dir/artifacts")" ] || status=1
done

# Each failing input again, for its report (fork mode keeps only the inputs): the verdict and
# the innermost frames in the project's code.
for t in $targets; do
  for a in "$work/$t/artifacts"/*; do
    [ -e "$a" ] || continue
    echo "== $a"
    "$build/tests/fuzz/$t" -rss_limit_mb=2048 -timeout=10 "$a" 2>&1 |
      grep -E "^SUMMARY: |ERROR: libFuzzer|^$t: | in [^ ]+ [^ (]*/(src|trace-formats|analyses)/" |
      head -4
  done
done
exit $status
