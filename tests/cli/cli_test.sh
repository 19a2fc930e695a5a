#!/usr/bin/env bash
# End-to-end tests of the gcreplay command. Usage: cli_test.sh CASE GCREPLAY
# Each case exits 0 on success; failures print what differed.
set -u
case_name=$1
GCR=$(readlink -f "$2")
SRC=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$SRC"
fails=0

fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# expect_exit CODE CMD...: runs CMD with stdout/stderr in $work/out, $work/err.
expect_exit() {
  local want=$1; shift
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  [ "$got" -eq "$want" ] || { fail "exit $got (want $want): $*"; sed 's/^/  stderr: /' "$work/err" >&2; }
}

contains() { # file text
  grep -qF -- "$2" "$1" || { fail "$1 lacks: $2"; sed 's/^/  got: /' "$1" | head -5 >&2; }
}

# check_report FILE: the JSON has the report's promised shape.
check_report() {
  python3 - "$1" <<'PY' || fail "report shape: $1"
import json, sys
r = json.load(open(sys.argv[1]))
assert isinstance(r["kernels"], list) and r["kernels"], "no kernels"
for period in r["kernels"] + [r["total"]]:
    for level in ("L1D", "L2"):
        lv = period[level]
        for key in ("accesses", "hits", "misses", "miss_rate"):
            assert key in lv, (level, key)
        assert lv["hits"] + lv["misses"] == lv["accesses"], level
        if lv["accesses"]:
            assert abs(lv["miss_rate"] - lv["misses"] / lv["accesses"]) < 1e-9
        assert lv["misses"] == lv["line_misses"] + lv["sector_misses"], level
        per = lv.get("per_sm" if level == "L1D" else "per_slice", {})  # --json-detail full
        for col, values in per.items():
            assert sum(values) == lv[col], (level, col)
tot = r["total"]
for level in ("L1D", "L2"):
    for key in ("accesses", "hits", "misses"):
        assert sum(k[level][key] for k in r["kernels"]) == tot[level][key], (level, key)
PY
}

case "$case_name" in
example-configs)
  # Every example config runs on every example trace.
  for cfg in examples/configs/*.json; do
    for tr in examples/traces/*; do
      [ -f "$tr" ] || continue
      case "$tr" in *.md) continue;; esac
      expect_exit 0 "$GCR" run --config "$cfg" --json "$work/r.json" "$tr"
      contains "$work/out" "total"
      check_report "$work/r.json"
    done
  done
  ;;
readme)
  # Every "$ gcreplay ..." line of README.md runs as written (from a scratch
  # directory that sees the repository's examples/ and tests/).
  mkdir "$work/repo"
  ln -s "$SRC/examples" "$work/repo/examples"
  ln -s "$SRC/tests" "$work/repo/tests"
  ln -s "$SRC/../shared" "$work/shared"
  n=0
  while IFS= read -r line; do
    cmd=${line#\$ gcreplay }
    n=$((n + 1))
    (cd "$work/repo" && eval "\"$GCR\" $cmd") >"$work/out" 2>"$work/err" ||
      { fail "README example: gcreplay $cmd"; cat "$work/err" >&2; }
  done < <(grep -E '^\$ gcreplay ' README.md)
  [ "$n" -ge 5 ] || fail "README has only $n runnable examples"
  # Where a block of one command is followed at once by a block of output, the output is
  # what the command prints (standard output and error, in a scratch folder of its own, shown
  # as /home/me/gcreplay).
  python3 - README.md "$work" <<'PY' >"$work/shown.tsv" || fail "README: reading the shown outputs"
import re, sys
text, work = open(sys.argv[1]).read(), sys.argv[2]
for i, m in enumerate(re.finditer(r"```\n\$ gcreplay ([^\n]*)\n```\n\n```\n(.*?)```\n", text, re.S)):
    open(f"{work}/want.{i}", "w").write(m.group(2))
    print(f"{i}\t{m.group(1)}")
PY
  shown=0
  while IFS=$'\t' read -r i cmd; do
    shown=$((shown + 1))
    rm -rf "$work/shown" && mkdir "$work/shown" && ln -s "$SRC/examples" "$work/shown/examples"
    (cd "$work/shown" && eval "\"$GCR\" $cmd") >"$work/got" 2>&1 || fail "gcreplay $cmd"
    # Absolute paths the command prints show as the README's reader's folder.
    sed -i "s#$work/shown#/home/me/gcreplay#g" "$work/got"
    cp "$work/want.$i" "$work/want"
    cmp -s "$work/got" "$work/want" ||
      { fail "README shows another output than gcreplay $cmd prints"; diff "$work/want" "$work/got" >&2; }
  done <"$work/shown.tsv"
  [ "$shown" -ge 4 ] || fail "README shows the output of only $shown examples"
  ;;
l1orgs-compare)
  # Seed 000 / 003 trends on a broadcast-heavy trace: one copy per line when
  # shared, copies and misses falling Pr40 -> Sh40+C10 -> Sh40, COLAB cutting
  # L2 reads.
  python3 examples/l1orgs_compare.py "$GCR" --check --ctas 160 >"$work/out" 2>"$work/err" ||
    { fail "l1orgs_compare.py --check"; cat "$work/out" "$work/err" >&2; }
  contains "$work/out" "Sh40+C10"
  ;;
tsc-compare)
  # The tag-split cache against the 128-B baseline, the sector cache, 64/32-B
  # lines and DSC-2/4 on synthetic traces: fewer misses and less traffic on
  # scattered reads, no worse on a coalesced stream, and every reference cache
  # replayed beside TSC equal to its own private run.
  python3 examples/tsc_compare.py "$GCR" --check >"$work/out" 2>"$work/err" ||
    { fail "tsc_compare.py --check"; cat "$work/err" >&2; }
  contains "$work/out" "gather:"
  contains "$work/out" "coalesced:"
  ;;
determinism)
  expect_exit 0 "$GCR" run -q --config examples/configs/volta80.json --json "$work/a.json" examples/traces/stencil.txt
  expect_exit 0 "$GCR" run -q --config examples/configs/volta80.json --json "$work/b.json" examples/traces/stencil.txt
  cmp -s "$work/a.json" "$work/b.json" || fail "two runs gave different JSON"
  # The effective config a report echoes is itself a config giving the same report.
  for cfg in examples/configs/*.json; do
    expect_exit 0 "$GCR" run -q --config "$cfg" --json "$work/c.json" examples/traces/stencil.txt
    python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["config"], open(sys.argv[2], "w"))' \
      "$work/c.json" "$work/echo.json"
    expect_exit 0 "$GCR" run -q --config "$work/echo.json" --json "$work/d.json" \
      examples/traces/stencil.txt
    python3 - "$work/c.json" "$work/d.json" <<'PY' || fail "echoed config of $cfg gives another report"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["kernels"] == b["kernels"] and a["total"] == b["total"] and a["config"] == b["config"]
PY
  done
  ;;
analysis-thread)
  # Analyses on a thread of their own report exactly what they report on the
  # replay's (several traces: kernels end, queues are flushed, state carries
  # on), with and without the timing model (a synchronous subscriber). The two runs of a
  # pair go side by side: under ThreadSanitizer each takes a while.
  for timing in "" --timing; do
    for mode in on off; do
      "$GCR" run -q $timing --analysis-thread "$mode" \
        --config examples/configs/volta80-analyses.json --json "$work/thread-$mode.json" \
        examples/traces/stencil.txt examples/traces/broadcast.txt ../shared/traces/accelsim/jacobi2d \
        >"$work/out-$mode" 2>&1 &
    done
    for mode in on off; do
      wait -n || { fail "a run with --analysis-thread failed ($timing)"; cat "$work"/out-* >&2; }
    done
    cmp -s "$work/thread-on.json" "$work/thread-off.json" ||
      fail "the analysis thread changed the report ($timing)"
  done
  ;;
convert-roundtrip)
  for tr in examples/traces/vecadd.txt examples/traces/stencil.txt; do
    expect_exit 0 "$GCR" convert "$tr" "$work/t.gcrt"
    expect_exit 0 "$GCR" convert --level 0 --block-bytes 256 "$work/t.gcrt" "$work/t0.gcrt"
    expect_exit 0 "$GCR" convert "$work/t0.gcrt" "$work/back.txt"
    expect_exit 0 "$GCR" convert "$work/back.txt" "$work/again.txt"
    cmp -s "$work/back.txt" "$work/again.txt" || fail "text -> native -> text is not stable for $tr"
    for f in "$tr" "$work/t.gcrt" "$work/t0.gcrt" "$work/back.txt"; do
      expect_exit 0 "$GCR" run -q --config examples/configs/volta80.json --json "$work/$(basename "$f").json" "$f"
    done
    python3 - "$work"/*.json <<'PY' || fail "reports differ between formats of $tr"
import json, sys
reps = [json.load(open(p)) for p in sys.argv[1:]]
for r in reps[1:]:
    assert r["kernels"] == reps[0]["kernels"] and r["total"] == reps[0]["total"]
# The native reader describes its trace in the report.
gcrt = [r for r in reps if r["traces"][0]["format"] == "gcrt"]
assert gcrt and all(r["traces"][0]["format_details"]["version"] == "1.2" for r in gcrt)
PY
    rm -f "$work"/*.json
  done
  # An Accel-Sim trace's register dependencies and units survive conversion (gcrt 1.2, also
  # gcrt -> gcrt): the timing model, which uses them, reports exactly what it reports on the
  # original, all but the description of the trace itself. (Without them it times the trace
  # as if it had no registers: other cycles, as a version 1.0 conversion did.)
  acc=../shared/traces/accelsim/sgemm_tiled
  expect_exit 0 "$GCR" convert "$acc" "$work/sg.gcrt"
  expect_exit 0 "$GCR" convert --level 0 --block-bytes 4096 "$work/sg.gcrt" "$work/sg0.gcrt"
  for f in "$acc" "$work/sg.gcrt" "$work/sg0.gcrt"; do
    expect_exit 0 "$GCR" run -q --timing --json-detail full --config examples/configs/qv100.json \
      --json "$work/$(basename "$f").json" "$f"
  done
  python3 - "$work/sgemm_tiled.json" "$work/sg.gcrt.json" "$work/sg0.gcrt.json" <<'PY' ||
import json, sys
reps = [json.load(open(p)) for p in sys.argv[1:]]
for r in reps:
    assert r.pop("traces")[0]["format"] in ("accelsim", "gcrt")
for r in reps[1:]:
    assert r == reps[0]
assert reps[0]["total"]["timing"]["cycles"] > 0
PY
    fail "timing reports differ between an Accel-Sim trace and its gcrt conversions"
  rm -f "$work"/*.json
  ;;
info)
  expect_exit 0 "$GCR" info examples/traces/vecadd.txt
  contains "$work/out" "text trace"
  contains "$work/out" "_Z6vecaddPKfS0_Pfi"
  expect_exit 0 "$GCR" convert examples/traces/vecadd.txt "$work/v.gcrt"
  expect_exit 0 "$GCR" info --json "$work/v.gcrt"
  python3 - "$work/out" <<'PY' || fail "info --json"
import json, sys
i = json.load(open(sys.argv[1]))
assert i["format"] == "gcrt" and i["records"]["kernel_begin"] == 1
assert i["kernels"][0]["ctas_with_records"] == 32
assert "format_details" in i
PY
  ;;
config-errors)
  while IFS=$'\t' read -r file who text; do
    case "$file" in \#*|"") continue;; esac
    rm -f "$work/r.json"
    expect_exit 1 "$GCR" run --config "tests/cli/configs/$file" --json "$work/r.json" examples/traces/vecadd.txt
    contains "$work/err" "$text"
    if [ "$who" = config ]; then contains "$work/err" "$file"; else contains "$work/err" "vecadd.txt"; fi
    [ ! -e "$work/r.json" ] || fail "$file: a JSON report was written"
    [ -z "$(ls "$work" | grep tmp)" ] || fail "$file: temporary file left behind"
  done < tests/cli/configs/expected.txt
  expect_exit 1 "$GCR" run --config "$work/missing.json" examples/traces/vecadd.txt
  contains "$work/err" "missing.json"
  ;;
trace-errors)
  # Every bad fixture of every format (trace-formats/<name>/fixtures/errors.txt): exit 1, its
  # path and place in the message, no output.
  lists=(trace-formats/*/fixtures/errors.txt)
  [ "${#lists[@]}" -ge 3 ] && [ -f "${lists[0]}" ] || fail "no trace-formats/*/fixtures/errors.txt"
  while IFS=$'\t' read -r file text; do
    case "$file" in \#*|"") continue;; esac
    rm -f "$work/r.json"
    expect_exit 1 "$GCR" run --config examples/configs/volta80.json --json "$work/r.json" "$file"
    contains "$work/err" "$file"
    contains "$work/err" "$text"
    [ ! -e "$work/r.json" ] || fail "$file: a JSON report was written"
    expect_exit 1 "$GCR" convert "$file" "$work/c.gcrt"
    [ ! -e "$work/c.gcrt" ] || fail "$file: convert left an output file"
    [ -z "$(ls "$work" | grep tmp)" ] || fail "$file: temporary file left behind"
    expect_exit 1 "$GCR" info "$file"
  done < <(cat "${lists[@]}")
  # ... and none is left out of its format's list.
  for f in trace-formats/*/fixtures/bad-*; do
    grep -q "^$f"$'\t' "${f%/*}/errors.txt" 2>/dev/null || fail "$f is not in ${f%/*}/errors.txt"
  done
  expect_exit 1 "$GCR" run --config examples/configs/volta80.json "$work/nonexistent.gcrt"
  contains "$work/err" "nonexistent.gcrt"
  printf 'hello\n' >"$work/unknown.dat"
  expect_exit 1 "$GCR" run --config examples/configs/volta80.json "$work/unknown.dat"
  contains "$work/err" "not a trace in any known format"
  ;;
compressed)
  # Every format reads gzip, xz and zstd files (src/io/bytesrc.h), detected from the
  # decompressed content, to the same report as the plain file (the files share one name, in
  # folders of their own, so that the reports name the same path).
  mkdir "$work/plain"
  cp examples/traces/stencil.txt "$work/plain/t.txt"
  expect_exit 0 "$GCR" convert "$work/plain/t.txt" "$work/plain/t.gcrt"
  for tool in gzip xz zstd; do
    command -v "$tool" >/dev/null || { [ "$tool" != gzip ] && continue; fail "no gzip"; }
    mkdir "$work/$tool"
    for t in t.txt t.gcrt; do
      "$tool" -c "$work/plain/$t" >"$work/$tool/$t" || fail "$tool $t"
    done
  done
  for dir in gzip xz zstd; do
    [ -d "$work/$dir" ] || continue
    for t in t.txt t.gcrt; do
      (cd "$work/plain" && "$GCR" run -q --config "$SRC/examples/configs/volta80.json" \
         --json a.json "$t") || fail "plain $t"
      (cd "$work/$dir" && "$GCR" run -q --config "$SRC/examples/configs/volta80.json" \
         --json a.json "$t") || fail "$dir $t"
      cmp -s "$work/plain/a.json" "$work/$dir/a.json" || fail "$dir-compressed $t: another report"
    done
  done
  ;;
json-atomic)
  # A report that cannot be written: error, and nothing claimed on stdout.
  expect_exit 1 "$GCR" run --config examples/configs/volta80.json --json "$work/no/such/dir/r.json" examples/traces/vecadd.txt
  contains "$work/err" "r.json"
  [ ! -s "$work/out" ] || fail "table printed although the JSON failed"
  # An existing report is replaced only by a complete one.
  echo '{"old": true}' >"$work/r.json"
  expect_exit 1 "$GCR" run --config tests/cli/configs/bad-type.json --json "$work/r.json" examples/traces/vecadd.txt
  grep -q '"old"' "$work/r.json" || fail "failed run touched the existing report"
  expect_exit 0 "$GCR" run --config examples/configs/volta80.json --json "$work/r.json" examples/traces/vecadd.txt
  check_report "$work/r.json"
  # Kernels are written out as they end, into a temporary file beside the
  # report: a run that fails after a kernel, or that a signal stops, leaves
  # the old report and no temporary file.
  echo '{"old": true}' >"$work/r.json"
  { cat examples/traces/vecadd.txt; echo 'kernel 2 k grid=1,1,1 block=32,1,1 shmem=0 regs=1'
    echo '0 0 0x10 load global 4 0xffffffff nonsense'; } >"$work/bad-second.txt"
  expect_exit 1 "$GCR" run --config examples/configs/volta80.json --json "$work/r.json" "$work/bad-second.txt"
  contains "$work/err" "bad-second.txt:829: bad address"
  grep -q '"old"' "$work/r.json" || fail "a run failing in its second kernel touched the report"
  ! ls "$work"/r.json.tmp.* >/dev/null 2>&1 || fail "temporary report left by a failed run"
  # A write that fails part-way (the file size limit; the signal it raises
  # ignored) names the file and leaves nothing.
  (trap '' XFSZ; ulimit -f 20; exec "$GCR" run -q --json-detail full --config examples/configs/volta80.json \
    --json "$work/r.json" examples/traces/stencil.txt) >"$work/out" 2>"$work/err"
  [ $? -eq 1 ] || fail "a report over the file size limit: exit $?, want 1"
  contains "$work/err" "r.json: write failed: File too large"
  grep -q '"old"' "$work/r.json" || fail "a failed write touched the report"
  ! ls "$work"/r.json.tmp.* >/dev/null 2>&1 || fail "temporary report left by a failed write"
  # A trace read from a pipe that stays open keeps the run going until killed.
  mkfifo "$work/fifo"
  { cat examples/traces/vecadd.txt; exec sleep 60; } >"$work/fifo" &
  feeder=$!
  # SIGHUP is ignored from the start, as under nohup: it stays ignored.
  (trap '' HUP; exec "$GCR" run -q --format text --config examples/configs/volta80.json \
    --json "$work/r.json" "$work/fifo") 2>"$work/err" &
  run=$!
  for _ in $(seq 200); do
    ls "$work"/r.json.tmp.* >/dev/null 2>&1 && break
    sleep 0.05
  done
  ls "$work"/r.json.tmp.* >/dev/null 2>&1 || fail "no temporary report while the run is going"
  kill -HUP "$run"
  sleep 0.3
  kill -0 "$run" 2>/dev/null || fail "SIGHUP, ignored when the run started, ended it"
  kill -TERM "$run"
  wait "$run"
  status=$?
  kill "$feeder" 2>/dev/null
  [ "$status" -eq 143 ] || fail "SIGTERM: exit $status, want 143 (ended by the signal)"
  ! ls "$work"/r.json.tmp.* >/dev/null 2>&1 || fail "temporary report left after SIGTERM"
  grep -q '"old"' "$work/r.json" || fail "a run stopped by SIGTERM touched the report"
  # The same with twelve variants, each with its --json-dir file, and their --json: thirteen
  # temporary files pending at once, none left after SIGTERM.
  mkdir "$work/variants"
  variants=()
  for i in $(seq 12); do variants+=(--config examples/configs/volta80.json); done
  { cat examples/traces/vecadd.txt; exec sleep 60; } >"$work/fifo" &
  feeder=$!
  "$GCR" run -q --format text "${variants[@]}" --json-dir "$work/variants" \
    --json "$work/r.json" "$work/fifo" 2>"$work/err" &
  run=$!
  for _ in $(seq 200); do
    [ "$(ls "$work/variants" | wc -l)" -eq 12 ] && break
    sleep 0.05
  done
  [ "$(ls "$work/variants" | wc -l)" -eq 12 ] || fail "not every variant's temporary report is there"
  kill -TERM "$run"
  wait "$run"
  status=$?
  kill "$feeder" 2>/dev/null
  [ "$status" -eq 143 ] || fail "SIGTERM (12 variants): exit $status, want 143"
  [ -z "$(ls "$work/variants")" ] || fail "temporary reports left after SIGTERM: $(ls "$work/variants")"
  ! ls "$work"/r.json.tmp.* >/dev/null 2>&1 || fail "temporary report left after SIGTERM (12 variants)"
  grep -q '"old"' "$work/r.json" || fail "a run of 12 variants stopped by SIGTERM touched the report"
  ;;
bad-input)
  # tests/cli/bad-input.txt: each bad input or output gives its exit status and
  # message, changes no input and leaves no file behind.
  b=$work/bad
  mkdir -p "$b"
  cp examples/traces/vecadd.txt "$b/t.txt"
  cp examples/configs/volta80.json "$b/c.json"
  "$GCR" convert "$b/t.txt" "$b/t.gcrt" 2>/dev/null || fail "convert t.gcrt"
  ln -s t.txt "$b/link-to-t.txt"
  cp -r trace-formats/accelsim/fixtures/ok-list "$b/acc"
  cp ../shared/gpgpusim-configs/SM7_QV100/gpgpusim.config "$b/g.config"
  cp ../shared/gpgpusim-configs/SM7_QV100/gpgpusim.config "$b/gpgpusim.config"
  sed 's/^-gpgpu_cache:dl2 S:32:/-gpgpu_cache:dl2 S:-32:/' \
    ../shared/gpgpusim-configs/SM7_QV100/gpgpusim.config >"$b/negative.config"
  sed 's/^-gpgpu_l1_banks 4/-gpgpu_l1_banks 0/' \
    ../shared/gpgpusim-configs/SM7_QV100/gpgpusim.config >"$b/banks0.config"
  mkdir "$b/d" "$b/emptydir" "$b/empty-list" "$b/blank-kernel" "$b/capital-kernel" \
    "$b/gz-only" "$b/zeros"
  printf '#gcreplay-text 1\n' >"$b/empty.txt"
  : >"$b/empty-list/kernelslist.g"
  cp trace-formats/accelsim/fixtures/ok-v5.traceg "$b/blank-kernel/kernel-1.traceg"
  printf ' kernel-1.traceg\n' >"$b/blank-kernel/kernelslist.g"
  cp trace-formats/accelsim/fixtures/ok-v5.traceg "$b/capital-kernel/Kernel-1.traceg"
  printf 'Kernel-1.traceg\n' >"$b/capital-kernel/kernelslist.g"
  gzip -c trace-formats/accelsim/fixtures/ok-v5.traceg >"$b/gz-only/kernel-1.traceg.gz"
  printf 'kernel-1.traceg\n' >"$b/gz-only/kernelslist.g"
  ln -s /dev/zero "$b/zeros/kernel-1.traceg"
  printf 'kernel-1.traceg\n' >"$b/zeros/kernelslist.g"
  cp trace-formats/text/fixtures/bad-kernel-block-wraps.txt "$b/block-wraps.txt"
  cp trace-formats/text/fixtures/bad-kernel-grid-wraps.txt "$b/grid-wraps.txt"
  cp trace-formats/accelsim/fixtures/bad-cut-line.traceg "$b/cut.traceg"
  printf '\357\273\277{"name": "bom"}\n' >"$b/bom.json"
  printf '{"l1d": {"\\u001b[31mred": 1}}\n' >"$b/escape.json"
  printf '{"l1d": {"ways": 4.0}}\n' >"$b/ways-real.json"
  python3 -c '
import random, sys
d = sys.argv[1]
random.seed(7)
open(d + "/random.bin", "wb").write(bytes(random.randrange(256) for _ in range(100000)))
z = bytearray(open("trace-formats/accelsim/fixtures/ok-modes.traceg.zst", "rb").read())
z[10] ^= 0xff  # inside the first block: zstd finds the damage
open(d + "/corrupt.traceg.zst", "wb").write(z)
' "$b" || fail "making random.bin and corrupt.traceg.zst"
  snapshot() { (cd "$b" && find . | sort && find . -type f -exec md5sum {} + | sort); }
  snapshot >"$work/before"
  n=0
  while IFS=$'\t' read -r want cmd text; do
    case "$want" in \#*|"") continue;; esac
    n=$((n + 1))
    (cd "$b" && eval "\"$GCR\" $cmd") >"$work/out" 2>"$work/err"
    got=$?
    [ "$got" -eq "$want" ] || { fail "exit $got (want $want): gcreplay $cmd"; cat "$work/err" >&2; }
    contains "$work/err" "$text"
    snapshot >"$work/after"
    cmp -s "$work/before" "$work/after" ||
      { fail "gcreplay $cmd changed the scratch directory"; diff "$work/before" "$work/after" >&2
        snapshot >"$work/before"; }
  done < tests/cli/bad-input.txt
  [ "$n" -ge 30 ] || fail "bad-input.txt has only $n cases"
  # One message a failure, under one prefix (getopt's own is off).
  expect_exit 2 "$GCR" run --bogus
  { [ "$(wc -l <"$work/err")" -eq 2 ] && ! grep -qv "^gcreplay run: \|^Try " "$work/err"; } ||
    { fail "an unknown option printed other lines"; cat "$work/err" >&2; }
  # The report to standard output (`-`), the table then to standard error.
  (cd "$b" && "$GCR" run --config c.json --json - t.txt) >"$work/out" 2>"$work/err" ||
    fail "run --json -"
  check_report "$work/out"
  contains "$work/err" "vecadd(float const*, float const*, float*, int)"
  (cd "$b" && "$GCR" run -q --config c.json --json /dev/stdout t.txt | cat) >"$work/out" ||
    fail "run --json /dev/stdout into a pipe"
  check_report "$work/out"
  # A FIFO receives the report; nothing is renamed over it.
  mkfifo "$b/fifo"
  cat "$b/fifo" >"$work/from-fifo" &
  reader=$!
  (cd "$b" && "$GCR" run -q --config c.json --json fifo t.txt) || fail "run --json FIFO"
  wait "$reader"
  [ -p "$b/fifo" ] || fail "the FIFO was replaced"
  check_report "$work/from-fifo"
  # A device node is written in place, never replaced (a private null device, when root may
  # make one); a block device is refused without being opened.
  if [ "$(id -u)" -eq 0 ] && mknod "$b/null" c 1 3 2>/dev/null; then
    (cd "$b" && "$GCR" run -q --config c.json --json null t.txt) || fail "run --json null"
    [ -c "$b/null" ] || fail "the character device was replaced by a file"
    if mknod "$b/blk" b 7 250 2>/dev/null; then
      expect_exit 2 "$GCR" run -q --config "$b/c.json" --json "$b/blk" "$b/t.txt"
      contains "$work/err" "blk: is a block device; gcreplay writes no output over one"
      [ -b "$b/blk" ] || fail "the block device was replaced"
    fi
  fi
  # /dev/null itself only when a faulty build could not replace it (not root).
  if [ "$(id -u)" -ne 0 ]; then
    expect_exit 0 "$GCR" run -q --config "$b/c.json" --json /dev/null "$b/t.txt"
    [ -c /dev/null ] || fail "/dev/null is no longer a character device"
  fi
  # A symlink's target is replaced and the link stays a link, also one to a name not made yet.
  echo old >"$b/report-target.json"
  ln -s report-target.json "$b/report-link.json"
  ln -s new-target.json "$b/dangling.json"
  (cd "$b" && "$GCR" run -q --config c.json --json report-link.json t.txt &&
     "$GCR" run -q --config c.json --json dangling.json t.txt) || fail "run --json LINK"
  { [ -L "$b/report-link.json" ] && [ -L "$b/dangling.json" ]; } ||
    fail "a symlink output was replaced"
  check_report "$b/report-target.json"
  check_report "$b/new-target.json"
  # convert and import-config to standard output.
  expect_exit 0 "$GCR" convert "$b/t.gcrt" "$work/t-again.txt"
  expect_exit 0 "$GCR" convert --to text "$b/t.gcrt" -
  cmp -s "$work/out" "$work/t-again.txt" || fail "convert to - differs from convert to a file"
  expect_exit 0 "$GCR" import-config -o - "$b/g.config"
  python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/out" ||
    fail "import-config -o - wrote no JSON"
  ;;
sweep)
  # gcreplay sweep on the example traces and two reference traces, two configs x two L1
  # sizes: the tables agree with one `gcreplay run` per pair, -j 1 and -j 4 write the same
  # bytes, a second run replays nothing, a changed config replays its pairs only, and a bad
  # trace fails alone. The variants of a trace share a pass, or not (--one-pass off): the
  # reports are the same but for the "variant" member, also with a variant that needs a
  # pass of its own.
  mkdir "$work/traces"
  cp examples/traces/*.txt "$work/traces/"
  cp -r ../shared/traces/accelsim/vectoradd-100 ../shared/traces/accelsim/jacobi2d "$work/traces/"
  cp examples/configs/volta80.json examples/configs/volta80-shared.json "$work/"
  sweep_args() { # DIR JOBS
    echo -q -j "$2" --set 'analyses.replication={}' --vary l1d.ways=256,64 \
      -c "$work/volta80.json" -c "$work/volta80-shared.json" -o "$1" "$work/traces"
  }
  expect_exit 0 "$GCR" sweep $(sweep_args "$work/s1" 1)
  expect_exit 0 "$GCR" sweep $(sweep_args "$work/s4" 4)
  diff -r "$work/s1" "$work/s4" >/dev/null || fail "sweep -j 1 and -j 4 wrote different files"
  # One pass or not. With --one-pass off every pair is a `gcreplay run` of its own; on, the
  # pairs of a trace that can share a pass are replayed in one (-j 6: two passes of two each,
  # so that 6 processes can run), and the VWS variant (the timing backend) alone.
  mkdir "$work/small"
  cp examples/traces/stencil.txt examples/traces/broadcast.txt "$work/small/"
  cp examples/configs/volta80-vws.json "$work/"
  for m in "on -j 1" "on -j 6" "off -j 1"; do
    expect_exit 0 "$GCR" sweep -q --one-pass $m --vary l1d.ways=256,64 -c "$work/volta80.json" \
      -c "$work/volta80-shared.json" -c "$work/volta80-vws.json" -o "$work/pass-${m// /}" "$work/small"
  done
  python3 - "$work" <<'PY' || fail "sweep --one-pass: reports differ"
import json, os, sys
work = sys.argv[1]
ids = [f"{c}+l1d.ways={w}" for c in ("volta80", "volta80-shared", "volta80-vws") for w in (256, 64)]
for run, size in (("on-j1", 4), ("on-j6", 2)):
    for trace in ("stencil", "broadcast"):
        passes = []
        for v in ids:
            text = open(f"{work}/pass-{run}/runs/{trace}/{v}.json").read()
            single = open(f"{work}/pass-off-j1/runs/{trace}/{v}.json").read()
            assert '"variant"' not in single, (trace, v)
            if "vws" in v:
                assert text == single, (run, trace, v)
                continue
            member = json.loads(text)["variant"]
            assert member["name"] == v and len(member["pass_variants"]) == size, (run, v, member)
            passes.append(tuple(member["pass_variants"]))
            at = text.index(',"variant":')
            assert text[:at] + text[text.index(',"config":', at):] == single, (run, trace, v)
        assert sorted(set(p for p in passes for p in p)) == sorted(v for v in ids if "vws" not in v)
        assert len(set(passes)) == 4 // size, passes
PY
  for m in on-j6 off-j1; do
    for f in summary.csv kernels.csv failures.csv summary.txt; do
      cmp -s "$work/pass-on-j1/$f" "$work/pass-$m/$f" || fail "sweep --one-pass $m: $f differs"
    done
  done
  expect_exit 0 "$GCR" sweep --status "$work/pass-on-j1"
  contains "$work/out" "12 pairs: 12 done, 0 failed, 0 running, 0 pending"
  expect_exit 2 "$GCR" sweep --one-pass maybe -c "$work/volta80.json" -o "$work/pass-bad" "$work/small"
  contains "$work/err" "--one-pass must be on or off, got 'maybe'"
  [ -z "$(find "$work/s1" -name '*.tmp*')" ] || fail "sweep left temporary files"
  # Every row of summary.csv is the total of that pair's own `gcreplay run`, and the kernel
  # rows add up to it.
  python3 - "$GCR" "$work" <<'PY' || fail "sweep tables differ from single runs"
import csv, json, os, subprocess, sys
gcr, work = sys.argv[1:]
rows = list(csv.DictReader(open(f"{work}/s1/summary.csv", newline="")))
kernels = list(csv.DictReader(open(f"{work}/s1/kernels.csv", newline="")))
plan = json.load(open(f"{work}/s1/sweep.json"))
assert len(rows) == len(plan["traces"]) * len(plan["variants"]) == 5 * 4, len(rows)
paths = {t["id"]: t["path"] for t in plan["traces"]}
assert sorted(paths) == ["broadcast", "jacobi2d", "stencil", "vecadd", "vectoradd-100"], paths
order = [(r["trace"], r["variant"]) for r in rows]
assert order == sorted(order, key=lambda p: (p[0], [v["id"] for v in plan["variants"]].index(p[1])))
for r in rows:
    out = f"{work}/single.json"
    subprocess.run([gcr, "run", "-q", "--config", r["config"], "--set", "analyses.replication={}",
                    "--set", f"l1d.ways={r['l1d.ways']}", "--json", out, paths[r["trace"]]],
                   check=True)
    t = json.load(open(out))["total"]
    want = {"instructions": t["instructions"]["warp_total"], "l1d_accesses": t["L1D"]["accesses"],
            "l1d_hits": t["L1D"]["hits"], "l1d_misses": t["L1D"]["misses"],
            "l2_accesses": t["L2"]["accesses"], "l2_misses": t["L2"]["misses"],
            "dram_read_bytes": t["traffic"]["dram_read_bytes"],
            "dram_write_bytes": t["traffic"]["dram_write_bytes"]}
    for k, v in want.items():
        assert int(r[k]) == v, (r["trace"], r["variant"], k, r[k], v)
    for k, v in (("l1d_miss_rate", t["L1D"]["miss_rate"]), ("l2_miss_rate", t["L2"]["miss_rate"]),
                 ("replication_ratio", t["analyses"]["replication"]["replication_ratio"]["all"]),
                 ("copies_per_line", t["analyses"]["replication"]["copies_per_line"])):
        assert abs(float(r[k]) - v) <= 1e-9 * max(1, abs(v)), (r["trace"], k, r[k], v)
    member = t["classes"]["replication_sensitive"]["member"]
    assert r["replication_sensitive"] == str(int(member)), (r["trace"], r["replication_sensitive"])
    assert r["cycles"] == "" and r["sac_choice"] == "", r
    ks = [k for k in kernels if (k["trace"], k["variant"]) == (r["trace"], r["variant"])]
    assert ks and sum(int(k["l1d_accesses"]) for k in ks) == int(r["l1d_accesses"])
txt = open(f"{work}/s1/summary.txt").read()
assert "ranked by l2_accesses (lower is better)" in txt and "jacobi2d" in txt, txt
assert open(f"{work}/s1/failures.csv", newline="").read() == \
    "trace,variant,config,l1d.ways,exit_status,message\r\n"
PY
  # A second run replays nothing; --collect rebuilds the same tables.
  find "$work/s1/runs" -name '*.json' -printf '%p %T@ %i\n' | sort >"$work/before"
  expect_exit 0 "$GCR" sweep $(sweep_args "$work/s1" 2)
  find "$work/s1/runs" -name '*.json' -printf '%p %T@ %i\n' | sort >"$work/after"
  cmp -s "$work/before" "$work/after" || fail "a resumed sweep replayed finished pairs"
  cp "$work/s1/summary.csv" "$work/summary-before.csv"
  rm "$work/s1/summary.csv"
  expect_exit 0 "$GCR" sweep --collect "$work/s1"
  cmp -s "$work/s1/summary.csv" "$work/summary-before.csv" || fail "--collect wrote another table"
  # A changed config: its pairs, and only those, are replayed.
  sed -i 's/"seed": 1/"seed": 7/' "$work/volta80-shared.json"
  sleep 1
  expect_exit 0 "$GCR" sweep $(sweep_args "$work/s1" 2)
  find "$work/s1/runs" -name '*.json' -printf '%p %T@ %i\n' | sort >"$work/after"
  changed=$(comm -13 "$work/before" "$work/after" | awk '{print $1}' | sed 's|.*/||' | sort -u)
  [ "$changed" = "$(printf 'volta80-shared+l1d.ways=256.json\nvolta80-shared+l1d.ways=64.json')" ] ||
    fail "after a config change, the sweep replayed: $changed"
  # A bad trace fails alone, and the exit status says so.
  cp trace-formats/text/fixtures/bad-number-junk.txt "$work/traces/zbad.txt"
  expect_exit 1 "$GCR" sweep $(sweep_args "$work/s1" 2)
  grep -q '^zbad,volta80+l1d.ways=256,.*,1,.*zbad.txt:3: bad CTA id' "$work/s1/failures.csv" ||
    { fail "failures.csv lacks the bad trace"; cat "$work/s1/failures.csv" >&2; }
  [ "$(grep -c '^zbad,' "$work/s1/failures.csv")" -eq 4 ] || fail "not every pair of zbad failed"
  [ "$(grep -c '^vecadd,' "$work/s1/summary.csv")" -eq 4 ] || fail "the other pairs did not run"
  expect_exit 1 "$GCR" sweep --collect "$work/s1"
  contains "$work/out" "failed (failures.csv):"
  # Stopped by a signal (SIGTERM to the whole group, as a batch system's time limit sends it),
  # a sweep leaves complete reports only, and the same command finishes the rest.
  rm "$work/traces/zbad.txt"
  setsid "$GCR" sweep $(sweep_args "$work/s7" 2) --force >/dev/null 2>&1 &
  leader=$!
  for _ in $(seq 100); do
    [ "$(find "$work/s7/runs" -name '*.json' 2>/dev/null | wc -l)" -ge 3 ] && break
    sleep 0.05
  done
  kill -TERM -- -"$leader" 2>/dev/null
  wait "$leader"
  # The replays of the group clean up after themselves as they end, perhaps after the sweep.
  for _ in $(seq 200); do
    kill -0 -- -"$leader" 2>/dev/null || break
    sleep 0.05
  done
  [ "$(find "$work/s7/runs" -name '*.json' | wc -l)" -lt 20 ] ||
    fail "the sweep ended before the signal: nothing was checked"
  [ -z "$(find "$work/s7" -name '*.tmp*' -o -name '.messages*')" ] ||
    fail "a stopped sweep left temporary files: $(find "$work/s7" -name '*.tmp*' -o -name '.messages*')"
  for f in $(find "$work/s7/runs" -name '*.json'); do
    check_report "$f"
  done
  expect_exit 0 "$GCR" sweep $(sweep_args "$work/s7" 2)
  [ "$(find "$work/s7/runs" -name '*.json' | wc -l)" -eq 20 ] || fail "the resumed sweep is incomplete"
  # In shards, as the tasks of a Slurm job array run it (--shard I/K DIR, from the plan in
  # DIR): the same bytes as one local sweep. --no-submit writes the job scripts and prints
  # the commands that submit them; the collect step says what is missing until every shard
  # has run.
  expect_exit 0 "$GCR" sweep $(sweep_args "$work/s8" 2) --slurm --no-submit --shards 3 \
    --max-running 2 --slurm-opt=--partition=gpu
  contains "$work/out" "20 pairs in 3 shards, job array 0-2%2, not submitted; submit with:"
  contains "$work/out" "array=\$(sbatch --parsable '$work/s8/slurm/sweep.sbatch')"
  contains "$work/out" "sbatch --dependency=afterany:\"\${array%%;*}\" '$work/s8/slurm/collect.sbatch'"
  for f in sweep collect; do
    bash -n "$work/s8/slurm/$f.sbatch" || fail "$f.sbatch is not a shell script"
    grep -qx '#SBATCH --partition=gpu' "$work/s8/slurm/$f.sbatch" || fail "$f.sbatch lacks --slurm-opt"
  done
  grep -qx '#SBATCH --array=0-2%2' "$work/s8/slurm/sweep.sbatch" || fail "sweep.sbatch: no array 0-2%2"
  grep -qx '#SBATCH --cpus-per-task=2' "$work/s8/slurm/sweep.sbatch" || fail "sweep.sbatch: -j 2 is not --cpus-per-task=2"
  contains "$work/s8/slurm/sweep.sbatch" "exec '$GCR' sweep --shard \"\$SLURM_ARRAY_TASK_ID/3\" -j \"\${SLURM_CPUS_PER_TASK:-1}\" '$work/s8'"
  contains "$work/s8/slurm/collect.sbatch" "exec '$GCR' sweep --collect '$work/s8'"
  expect_exit 0 "$GCR" sweep --status "$work/s8"
  contains "$work/out" "20 pairs: 0 done, 0 failed, 0 running, 20 pending"
  contains "$work/out" "no job id known"
  expect_exit 0 "$GCR" sweep --shard 0/3 -j 2 "$work/s8"
  contains "$work/out" "gcreplay sweep: shard 0/3 of $work/s8 on "
  expect_exit 0 "$GCR" sweep --shard 2/3 -q "$work/s8"
  expect_exit 1 "$GCR" sweep --collect "$work/s8"
  contains "$work/err" "shard 1 of 3 left no marker ($work/s8/slurm/shards/1.json): it never started"
  contains "$work/err" "pairs not run"
  expect_exit 2 "$GCR" sweep --shard 1/4 "$work/s8"
  contains "$work/err" "was split into 3 shards (slurm/submission.json)"
  expect_exit 0 "$GCR" sweep --shard 1/3 "$work/s8"
  expect_exit 0 "$GCR" sweep --shard 1/3 "$work/s8"
  contains "$work/out" "8 pairs: 8 done before, 0 replayed, 0 failed"
  expect_exit 0 "$GCR" sweep --collect "$work/s8"
  for f in summary.csv kernels.csv failures.csv summary.txt; do
    cmp -s "$work/s7/$f" "$work/s8/$f" || fail "sweep in shards: $f differs from one local sweep's"
  done
  expect_exit 0 "$GCR" sweep --status "$work/s8" --json
  python3 - "$work/out" <<'PY' || fail "sweep --status --json"
import json, sys
st = json.load(open(sys.argv[1]))
assert st["pairs"] == {"pairs": 20, "done": 20, "failed": 0, "running": 0, "pending": 0}, st
shards = st["slurm"]["shard_states"]
assert [s["shard"] for s in shards] == [0, 1, 2]
assert sum(s["pairs"]["pairs"] for s in shards) == 20 and all(s["pairs"]["done"] == s["pairs"]["pairs"] for s in shards)
# Shards are of the pairs of a trace that can share a pass: here the 4 variants of a trace.
assert all(s["pairs"]["pairs"] % 4 == 0 for s in shards), shards
assert max(s["pairs"]["pairs"] for s in shards) - min(s["pairs"]["pairs"] for s in shards) <= 4, shards
assert all(s["marker"]["finished"] and s["marker"]["failed"] == 0 for s in shards), shards
PY
  expect_exit 0 "$GCR" sweep $(sweep_args "$work/s8" 2) --slurm
  contains "$work/out" "every pair of $work/s8 is done: nothing to submit"
  # The tasks replay as the submission asked: --one-pass off is on their command line.
  expect_exit 0 "$GCR" sweep $(sweep_args "$work/s10" 2) --slurm --no-submit --one-pass off
  contains "$work/s10/slurm/sweep.sbatch" "-j \"\${SLURM_CPUS_PER_TASK:-1}\" --one-pass off '$work/s10'"
  # Submitting needs sbatch.
  mkdir "$work/nobin"
  PATH=$work/nobin expect_exit 1 "$GCR" sweep $(sweep_args "$work/s9" 2) --slurm
  contains "$work/err" "sbatch could not be run: is Slurm installed here, with sbatch on the PATH?"
  # What is refused.
  expect_exit 2 "$GCR" sweep -c "$work/volta80.json" -o "$work/s5" --rank-by speed "$work/traces"
  contains "$work/err" "--rank-by speed: not a metric that ranks"
  expect_exit 2 "$GCR" sweep -c "$work/volta80.json" -o "$work/traces" "$work/traces"
  contains "$work/err" "a folder that holds files but no sweep.json"
  expect_exit 2 "$GCR" sweep -c "$work/volta80.json" -o "$work/s6" --vary 'l1d.ways=1,x y' "$work/traces"
  contains "$work/err" "--vary l1d.ways=1,x y: l1d.ways=x y: the value is neither JSON nor a bare word"
  ;;
plot)
  # gcreplay plot on a report and on a sweep: every plot a PNG of 800 x 450 pixels and an SVG
  # of 576 x 324 points, its data equal to the report's, and index.html showing every image
  # in headless Chromium.
  expect_exit 0 "$GCR" run -q --json-detail full --config examples/configs/sac4x4-small.json \
    --set 'analyses.replication={}' --set 'analyses.reuse_distance={}' \
    --json "$work/r.json" ../shared/traces/accelsim/jacobi2d
  expect_exit 0 "$GCR" plot -o "$work/p" "$work/r.json"
  for n in mrc kernels replication sac; do contains "$work/out" "$work/p/$n.png"; done
  mkdir "$work/traces"
  cp examples/traces/stencil.txt examples/traces/broadcast.txt "$work/traces/"
  expect_exit 0 "$GCR" sweep -q -j 2 --set 'analyses.replication={}' --vary l1d.ways=256,64 \
    -c examples/configs/volta80.json -c examples/configs/volta80-shared.json \
    -o "$work/s" "$work/traces"
  expect_exit 0 "$GCR" plot -o "$work/sp" --metric l1d_miss_rate "$work/s"
  contains "$work/out" "heatmap-l1d_miss_rate.png"
  # A pair's report from a pass it shared with other variants plots as any report.
  grep -q '"variant":{"name":"volta80+l1d.ways=256"' "$work/s/runs/stencil/volta80+l1d.ways=256.json" ||
    fail "the sweep's pairs did not share a pass"
  expect_exit 0 "$GCR" plot -o "$work/pp" "$work/s/runs/stencil/volta80+l1d.ways=256.json"
  contains "$work/out" "$work/pp/kernels.png"
  python3 - "$work" <<'PY' || fail "plot files or data"
import csv, json, os, struct, sys, xml.etree.ElementTree as ET
work = sys.argv[1]
for d in ("p", "sp"):
    names = sorted(f[:-5] for f in os.listdir(f"{work}/{d}") if f.endswith(".json"))
    assert names, d
    page = open(f"{work}/{d}/index.html").read()
    for n in names:
        png = open(f"{work}/{d}/{n}.png", "rb").read(24)
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", png[16:24]) == (800, 450), n
        svg = ET.parse(f"{work}/{d}/{n}.svg").getroot()
        assert svg.get("width") == "576pt" and svg.get("height") == "324pt", n
        assert f'src="{n}.png"' in page, n
r = json.load(open(f"{work}/r.json"))
t, ks = r["total"], r["kernels"]
mrc = json.load(open(f"{work}/p/mrc.json"))
assert mrc["series"]["global"] == [p["miss_ratio"] for p in t["analyses"]["reuse_distance"]["global"]["mrc"]]
assert mrc["series"]["sm0"] == [p["miss_ratio"] for p in t["analyses"]["reuse_distance"]["per_sm"][0]["mrc"]]
k = json.load(open(f"{work}/p/kernels.json"))
assert k["series"]["l1d_miss_rate"] == [x["L1D"]["miss_rate"] for x in ks]
assert k["series"]["l2_miss_rate"] == [x["L2"]["miss_rate"] for x in ks]
rep = json.load(open(f"{work}/p/replication.json"))
assert rep["series"]["copies_per_line"] == [x["analyses"]["replication"]["copies_per_line"] for x in ks]
sac = json.load(open(f"{work}/p/sac.json"))
assert sac["series"]["eab_sm_side"] == [x["multichip"]["sac"]["kernel"]["eab_sm_side"]["total"] for x in ks]
assert sac["choice"] == [x["multichip"]["sac"]["kernel"]["choice"] for x in ks]
h = json.load(open(f"{work}/sp/heatmap-l1d_miss_rate.json"))
rows = list(csv.DictReader(open(f"{work}/s/summary.csv", newline="")))
for i, tr in enumerate(h["traces"]):
    for j, v in enumerate(h["variants"]):
        row = [x for x in rows if x["trace"] == tr and x["variant"] == v][0]
        assert h["values"][i][j] == float(row["l1d_miss_rate"]), (tr, v)
PY
  # Every image of each index.html loads in a browser (a copy of the page reports it).
  for d in p sp; do
    cp "$work/$d/index.html" "$work/$d/check.html"
    cat >>"$work/$d/check.html" <<'HTML'
<script>
window.addEventListener("load", function () {
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++) if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++;
  document.body.setAttribute("data-images", ok + "/" + imgs.length);
});
</script>
HTML
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
      --disable-component-update --disable-sync --no-first-run --user-data-dir="$work/chromium" \
      --dump-dom "file://$work/$d/check.html" >"$work/dom" 2>/dev/null
    n=$(ls "$work/$d"/*.png | wc -l)
    grep -q "data-images=\"$n/$n\"" "$work/dom" ||
      fail "$d/index.html: not every image loaded in Chromium ($(grep -o 'data-images="[^"]*"' "$work/dom"), want $n/$n)"
  done
  # What is refused.
  expect_exit 1 "$GCR" plot -o "$work/bad" examples/configs/volta80.json
  contains "$work/err" "volta80.json: not a gcreplay report"
  expect_exit 1 "$GCR" plot -o "$work/bad" "$work/traces"
  contains "$work/err" "not a sweep's folder"
  expect_exit 2 "$GCR" plot -o "$work/r.json" "$work/r.json"
  contains "$work/err" "exists and is not a folder"
  ;;
slurm)
  # gcreplay sweep --slurm against a real Slurm: a one-node cluster on this machine
  # (tests/cli/slurm_local.sh) runs the sweep as a job array of 3 shards, one of which is
  # cancelled halfway; submitted again, the sweep completes, replaying only what was not
  # done, and the collected tables are the bytes a local `sweep -j 2` writes. If Slurm
  # cannot start here, the case fails and says why.
  source tests/cli/slurm_local.sh
  trap 'slurm_down; rm -rf "$work"' EXIT
  slurm_up "$work/cluster" || { echo "FAIL: Slurm could not start on this machine (above)" >&2; exit 1; }
  mkdir "$work/traces"
  for t in bfs_csr histogram256 jacobi2d sgemm_tiled stream_triad; do
    cp -r "../shared/traces/accelsim/$t" "$work/traces/"
  done
  cp examples/traces/*.txt "$work/traces/"
  sweep_args() { # DIR: 8 traces x 4 variants, with the timing backend (slower pairs)
    echo -q --timing --set 'analyses.replication={}' --vary l1d.ways=256,64 \
      -c examples/configs/volta80.json -c examples/configs/volta80-shared.json -o "$1" "$work/traces"
  }
  slurm_args="--slurm --shards 3 --max-running 2 -j 1 --slurm-opt=--partition=debug --slurm-opt=--time=10:00"
  expect_exit 0 "$GCR" sweep $(sweep_args "$work/local") -j 2
  expect_exit 0 "$GCR" sweep $slurm_args $(sweep_args "$work/sw")
  contains "$work/out" "32 pairs in 3 shards: submitted job array"
  array=$(sed -n 's/.*submitted job array \([0-9]*\) .*/\1/p' "$work/out")
  collect=$(sed -n 's/.* collect job \([0-9]*\) after it/\1/p' "$work/out")
  [ -n "$array" ] && [ -n "$collect" ] || { fail "no job ids in: $(cat "$work/out")"; exit 1; }
  grep -qx '#SBATCH --array=0-2%2' "$work/sw/slurm/sweep.sbatch" || fail "sweep.sbatch lacks the array 0-2%2"
  grep -qx '#SBATCH --partition=debug' "$work/sw/slurm/collect.sbatch" || fail "collect.sbatch lacks --slurm-opt"

  # wait_gone SECONDS JOB...: until squeue lists none of them, or fail saying where it stands.
  wait_gone() {
    local limit=$1; shift
    local ids; ids=$(IFS=,; echo "$*")
    slurm_wait_for "$limit" slurm_jobs_gone "$ids" && return 0
    fail "jobs $ids still in the queue after $limit s:"
    squeue -j "$ids" >&2
    "$GCR" sweep --status "$work/sw" >&2
    slurm_fail "(the cluster's logs)"
    exit 1
  }
  # A shard's task is cancelled halfway: the first seen running with a pair done and at
  # least three to go.
  victim=
  deadline=$((SECONDS + 120))
  while [ "$SECONDS" -lt "$deadline" ]; do
    "$GCR" sweep --status "$work/sw" --json >"$work/status.json" 2>/dev/null
    victim=$(python3 - "$work/status.json" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))
for s in st["slurm"]["shard_states"]:
    p = s["pairs"]
    if s["state"] == "RUNNING" and p["done"] >= 1 and p["pending"] + p["running"] >= 3:
        print(s["shard"])
        break
PY
)
    [ -n "$victim" ] && break
    slurm_jobs_gone "$array" && break
    sleep 0.1
  done
  [ -n "$victim" ] ||
    { fail "no shard was seen halfway in 120 s (they ran too fast to cancel one, or never ran)"
      "$GCR" sweep --status "$work/sw" >&2; exit 1; }
  scancel "${array}_$victim"
  wait_gone 120 "$array" "$collect"
  "$GCR" sweep --status "$work/sw" >"$work/status.txt"
  grep -q '"finished"' "$work/sw/slurm/shards/$victim.json" && fail "the cancelled shard's marker says it ended"
  "$GCR" sweep --status "$work/sw" --json >"$work/status.json"
  python3 - "$work/status.json" "$victim" <<'PY' || { fail "after scancel"; cat "$work/status.txt" >&2; }
import json, sys
st = json.load(open(sys.argv[1]))
victim = int(sys.argv[2])
s = st["slurm"]["shard_states"][victim]
assert s["pairs"]["done"] >= 1 and s["pairs"]["pending"] >= 1, s
assert s["pairs"]["running"] == 0 and st["pairs"]["failed"] == 0, st["pairs"]
assert st["pairs"]["pending"] == s["pairs"]["pending"], "only the cancelled shard has pairs left"
assert "not ended" in s["summary"], s["summary"]
PY
  contains "$work/status.txt" "Slurm: job array $array, 3 shards, at most 2 at once"
  [ -z "$(find "$work/sw" -name '*.tmp*')" ] || fail "the cancelled shard left temporary files: $(find "$work/sw" -name '*.tmp*')"
  for f in $(find "$work/sw/runs" -name '*.json'); do check_report "$f"; done
  scontrol show job "$collect" | grep -q 'ExitCode=1:0' || fail "the collect job of an incomplete sweep did not fail"
  contains "$work/sw/slurm/logs/collect-job-$collect.out" "pairs not run"
  find "$work/sw/runs" -name '*.json' -printf '%p %T@ %i\n' | sort >"$work/before"

  # Submitted again: the cancelled shard's pairs, and only those, are replayed.
  expect_exit 0 "$GCR" sweep $slurm_args $(sweep_args "$work/sw")
  array2=$(sed -n 's/.*submitted job array \([0-9]*\) .*/\1/p' "$work/out")
  collect2=$(sed -n 's/.* collect job \([0-9]*\) after it/\1/p' "$work/out")
  [ -n "$array2" ] && [ -n "$collect2" ] || { fail "no job ids in: $(cat "$work/out")"; exit 1; }
  wait_gone 120 "$array2" "$collect2"
  scontrol show job "$collect2" | grep -q 'JobState=COMPLETED.*' || fail "the second collect job did not complete"
  scontrol show job "$collect2" | grep -q 'ExitCode=0:0' ||
    { fail "the second collect job failed"; cat "$work/sw/slurm/logs/collect-job-$collect2.out" >&2; }
  find "$work/sw/runs" -name '*.json' -printf '%p %T@ %i\n' | sort >"$work/after"
  [ -z "$(comm -23 "$work/before" "$work/after")" ] || fail "the resubmitted sweep replayed finished pairs"
  [ "$(wc -l <"$work/after")" -eq 32 ] || fail "the resubmitted sweep is incomplete"
  python3 - "$work/sw" "$victim" "$array2" <<'PY' || fail "the second array's shards"
import json, sys
sw, victim, array2 = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for i in range(3):
    m = json.load(open(f"{sw}/slurm/shards/{i}.json"))
    assert m["job"] == f"{array2}_{i}" and m["finished"] and m["failed"] == 0, m
    if i == victim:
        assert m["done_before"] >= 1 and m["replayed"] >= 1, m
    else:
        assert m["replayed"] == 0 and m["done_before"] == m["pairs"], m
PY
  for f in summary.csv kernels.csv failures.csv summary.txt; do
    cmp -s "$work/local/$f" "$work/sw/$f" || fail "$f of the Slurm sweep differs from the local one"
  done
  "$GCR" sweep --status "$work/sw" >"$work/status.txt"
  contains "$work/status.txt" "32 pairs: 32 done, 0 failed, 0 running, 0 pending"
  grep -c ' ended on ' "$work/status.txt" | grep -qx 3 || { fail "not every shard ended"; cat "$work/status.txt" >&2; }
  ;;
usage)
  expect_exit 2 "$GCR"
  expect_exit 2 "$GCR" frobnicate
  expect_exit 2 "$GCR" run examples/traces/vecadd.txt
  contains "$work/err" "--config"
  expect_exit 2 "$GCR" run --config examples/configs/volta80.json
  expect_exit 2 "$GCR" run --bogus
  expect_exit 2 "$GCR" run --analysis-thread maybe --config examples/configs/volta80.json examples/traces/vecadd.txt
  contains "$work/err" "auto, on or off"
  # Decoding on a thread of its own or not, the report is the same.
  for d in on off; do
    expect_exit 0 "$GCR" run -q --decode-thread $d --json "$work/decode-$d.json" \
      --config examples/configs/volta80.json examples/traces/stencil.txt
  done
  cmp -s "$work/decode-on.json" "$work/decode-off.json" || fail "--decode-thread changed the report"
  expect_exit 2 "$GCR" convert onlyone
  expect_exit 2 "$GCR" convert examples/traces/vecadd.txt "$work/out.unknownext"
  contains "$work/err" "extension"
  expect_exit 2 "$GCR" convert --level 42 examples/traces/vecadd.txt "$work/x.gcrt"
  expect_exit 2 "$GCR" convert --to nosuchformat examples/traces/vecadd.txt "$work/x.gcrt"
  expect_exit 2 "$GCR" run --format nosuchformat --config examples/configs/volta80.json examples/traces/vecadd.txt
  expect_exit 2 "$GCR" bench --instructions 12
  for c in run convert info bench formats; do
    expect_exit 0 "$GCR" "$c" --help
    contains "$work/out" "usage: gcreplay $c"
  done
  expect_exit 0 "$GCR" --version
  expect_exit 0 "$GCR" formats
  contains "$work/out" "gcrt"
  ;;
sac)
  # Synthetic traces built to favour each LLC organisation (examples/sac/):
  # the model must pick it, and the CRD's SM-side hit rate must be within 5
  # points of the replayed SM-side LLC's, except for SAC's home-chip CRD on
  # homed-large's second kernel, the limit examples/sac/README.md documents,
  # which the requester-side CRD (crd.at = "requester") does not have.
  kinds="shared private shared-large homed-large"
  for kind in $kinds; do
    sh examples/sac/gen-synthetic.sh "$kind" >"$work/$kind.txt" || fail "gen-synthetic.sh $kind"
  done
  python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c["chips"]["crd"]["at"] = "requester"; json.dump(c, open(sys.argv[2], "w"))' \
    examples/configs/sac4x4-small.json "$work/requester.json"
  for cfg in examples/configs/sac4x4-small.json "$work/requester.json"; do
    expect_exit 0 "$GCR" sac --config "$cfg" --json "$work/sac.json" \
      "$work/shared.txt" "$work/private.txt" "$work/shared-large.txt" "$work/homed-large.txt"
    contains "$work/out" "sac_shared"
    contains "$work/out" "EAB-M"
    python3 - "$work/sac.json" <<'PY' || fail "sac decisions on the synthetic traces ($cfg)"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
at = runs[0]["config"]["chips"]["crd"]["at"]
want = {"sac_shared": "sm_side", "sac_private": "memory_side",
        "sac_shared_large": "memory_side", "sac_homed_place": "memory_side",
        "sac_homed_reuse": "memory_side"}
names = [k["name"] for r in runs for k in r["kernels"]]
assert names == ["sac_shared", "sac_private", "sac_shared_large", "sac_homed_place",
                 "sac_homed_reuse"], names
for run in runs:
    for k in run["kernels"]:
        sac = k["multichip"]["sac"]
        for scope in ("window", "kernel"):
            s = sac[scope]
            assert s["choice"] == want[k["name"]], (k["name"], scope, s["choice"])
            off = abs(s["crd_sm_hit_rate"] - s["replayed_sm_hit_rate"])
            if at == "home" and k["name"] == "sac_homed_reuse" and scope == "kernel":
                assert off > 0.5, off  # the documented limit of SAC's CRD
            else:
                assert off <= 0.05, (k["name"], scope, off)
        assert sac["window"]["sm_hit_source"] == "crd" and sac["kernel"]["sm_hit_source"] == "replayed"
        assert sac["runtime_winner"] is None
        mc = k["multichip"]
        for org in ("memory_side", "sm_side"):
            o = mc[org]
            assert o["local_requests"] + o["remote_requests"] == o["requests"]
            assert sum(o["per_slice_requests"]) == o["requests"]
        # The memory-side LLC is the report's L2.
        assert mc["memory_side"]["llc_accesses"] == k["L2"]["accesses"]
        assert mc["memory_side"]["llc_hits"] == k["L2"]["hits"]
PY
  done
  # Runtime winners (--timing): each trace replayed in timing mode with each
  # organisation alone. Every field is filled and consistent (the winner has
  # fewer cycles, a tie keeps memory-side), and the timed winner agrees with
  # the model's kernel-scope choice on every synthetic kernel. Then the links
  # are charged: at an eighth of B_inter memory-side sac_shared, 3 requests in
  # 4 remote, becomes link-bound and slower, SM-side (few remote misses) not.
  python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c["chips"]["eab"]["inter_gbs"] = 24; json.dump(c, open(sys.argv[2], "w"))' \
    examples/configs/sac4x4-small.json "$work/slow-links.json"
  expect_exit 0 "$GCR" sac --timing --config examples/configs/sac4x4-small.json --json "$work/sac-t.json" \
    "$work/shared.txt" "$work/private.txt" "$work/shared-large.txt" "$work/homed-large.txt"
  contains "$work/out" "cycles-M"
  expect_exit 0 "$GCR" sac --timing --config "$work/slow-links.json" --json "$work/sac-slow.json" \
    "$work/shared.txt"
  python3 - "$work/sac-t.json" "$work/sac-slow.json" <<'PY' || fail "sac --timing runtime winners"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
def check(period):
    rt = period["multichip"]["sac"]["runtime"]
    cm, cs = rt["memory_side"]["cycles"], rt["sm_side"]["cycles"]
    assert cm > 0 and cs > 0, (cm, cs)
    assert rt["winner"] == ("sm_side" if cs < cm else "memory_side"), rt
    assert period["multichip"]["sac"]["runtime_winner"] == rt["winner"]
    assert abs(rt["sm_side_speedup"] - cm / cs) < 1e-9, rt
    return cm, cs
for run in runs:
    # The model's inputs come from the functional replay, as without --timing.
    assert "timing" not in run["total"] and not run["config"].get("timing", {}).get("enabled")
    sums = [0, 0]
    for k in run["kernels"]:
        cm, cs = check(k)
        sums[0] += cm
        sums[1] += cs
        choice = k["multichip"]["sac"]["kernel"]["choice"]
        assert k["multichip"]["sac"]["runtime_winner"] == choice, (k["name"], choice, cm, cs)
    assert list(check(run["total"])) == sums, (check(run["total"]), sums)
shared = runs[0]["kernels"][0]["multichip"]["sac"]["runtime"]
slow = json.load(open(sys.argv[2]))["runs"][0]["kernels"][0]["multichip"]["sac"]["runtime"]
assert slow["memory_side"]["limiting_resource"] == "chip_link_reply", slow
assert slow["memory_side"]["cycles"] > 1.3 * shared["memory_side"]["cycles"], (slow, shared)
assert slow["sm_side"]["cycles"] < 1.1 * shared["sm_side"]["cycles"], (slow, shared)
PY
  # timing.enabled in the config asks for the same.
  python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c["timing"] = {"enabled": True}; json.dump(c, open(sys.argv[2], "w"))' \
    examples/configs/sac4x4-small.json "$work/timed.json"
  expect_exit 0 "$GCR" sac --config "$work/timed.json" "$work/private.txt"
  grep -qE 'replayed +memory_side +memory_side +[0-9]+ +[0-9]+$' "$work/out" ||
    fail "timing.enabled did not time the organisations"
  # The multi-chip examples derived from single-chip ones cannot drift from them.
  python3 - <<'PY' || fail "a derived multi-chip config drifted from its single-chip one"
import json
for base, derived in (("qv100", "qv100-4chips"), ("volta80", "volta80-4chips")):
    a = json.load(open("examples/configs/%s.json" % base))
    b = json.load(open("examples/configs/%s.json" % derived))
    assert b.pop("chips")["count"] == 4, derived
    for c in (a, b):
        for key in ("name", "comment"):
            c.pop(key)
        c["l2"].pop("prefill_memcpy", None)  # refused with several chips
    assert a == b, derived
PY
  expect_exit 1 "$GCR" sac --config examples/configs/volta80.json examples/traces/vecadd.txt
  contains "$work/err" "\$.chips.count: the SAC model needs a GPU of several chips"
  expect_exit 2 "$GCR" sac examples/traces/vecadd.txt
  expect_exit 0 "$GCR" sac --help
  contains "$work/out" "usage: gcreplay sac"
  expect_exit 2 sh examples/sac/gen-synthetic.sh nosuchkind
  ;;
sac-crd-sets)
  # Which sets the CRD samples. In sac4x4-sets512.json, 512 LLC sets per chip
  # as in SAC, the hot table of each trace falls in another range of set
  # indices (page p takes set indices 2p and 2p+1) and only those sets hit.
  # With the default 8 CRD sets the predicted SM-side hit rate must be within
  # 5 points of the replayed one on every trace; every 64th set of the chip,
  # set index 0 of 8 slices, missed by 16 to 47 points. The whole kernel is
  # compared: its 2,048-request window puts about 32 requests in 8 of 512 sets.
  for hot in "0 256" "256 256" "128 320" "96 224" "32 416"; do
    set -- $hot
    sh examples/sac/gen-synthetic.sh hot-sets 64 "$1" "$2" >"$work/hot-$1.txt" ||
      fail "gen-synthetic.sh hot-sets 64 $1 $2"
  done
  expect_exit 0 "$GCR" sac --config examples/configs/sac4x4-sets512.json --json "$work/sac.json" \
    "$work/hot-0.txt" "$work/hot-256.txt" "$work/hot-128.txt" "$work/hot-96.txt" "$work/hot-32.txt"
  python3 - "$work/sac.json" <<'PY' || fail "CRD prediction against the replayed SM-side LLC"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert len(runs) == 5, len(runs)
assert runs[0]["config"]["chips"]["crd"]["sets"] == 8
off = []
for run in runs:
    trace = run["traces"][0]["path"].rsplit("/", 1)[-1]
    k = run["kernels"][0]["multichip"]["sac"]["kernel"]
    crd, replayed = k["crd_sm_hit_rate"], k["replayed_sm_hit_rate"]
    print(f"{trace}: CRD {100 * crd:.2f} %, replayed {100 * replayed:.2f} %")
    assert replayed > 0.2, (trace, replayed)  # the hot sets hit: there is something to see
    if abs(crd - replayed) > 0.05:
        off.append(trace)
assert not off, f"CRD more than 5 points off on {off}"
PY
  expect_exit 2 sh examples/sac/gen-synthetic.sh hot-sets 64
  ;;
import-config)
  # The shipped imported configs are what import-config makes of the public files.
  shared=../shared/gpgpusim-configs
  for pair in "SM7_QV100 qv100" "SM86_RTX3070 rtx3070"; do
    set -- $pair
    expect_exit 0 "$GCR" import-config -o "$work/$2.json" "$shared/$1/gpgpusim.config" \
      "$shared/$1/trace.config"
    cmp -s "$work/$2.json" "examples/configs/$2.json" ||
      fail "examples/configs/$2.json differs from a fresh import of $shared/$1"
  done
  expect_exit 0 "$GCR" import-config -o "$work/gtx480.json" "$shared/SM2_GTX480/gpgpusim.config"
  expect_exit 0 "$GCR" run -q --config "$work/gtx480.json" examples/traces/stencil.txt
  # Errors name the file and line; no output is left behind.
  printf -- '# overrides\n-gpgpu_cache:dl1 S:4:128\n' >"$work/bad.config"
  expect_exit 1 "$GCR" import-config -o "$work/out.json" "$shared/SM7_QV100/gpgpusim.config" \
    "$work/bad.config"
  contains "$work/err" "bad.config:2: -gpgpu_cache:dl1 S:4:128: not a GPGPU-Sim cache string"
  [ ! -e "$work/out.json" ] || fail "output written for a bad config"
  printf -- '-trace_opcode_latency_initiation_sp 4\n' >"$work/bad-unit.config"
  expect_exit 1 "$GCR" import-config -o "$work/out.json" "$shared/SM7_QV100/gpgpusim.config" \
    "$work/bad-unit.config"
  contains "$work/err" "bad-unit.config:1: -trace_opcode_latency_initiation_sp 4: expected <latency>,<initiation interval>, each 1 to 65536"
  [ ! -e "$work/out.json" ] || fail "output written for a bad unit latency"
  expect_exit 2 "$GCR" import-config "$work/bad.config"
  expect_exit 2 "$GCR" import-config -o "$work/out.json"
  expect_exit 0 "$GCR" import-config --help
  contains "$work/out" "usage: gcreplay import-config"
  ;;
fidelity)
  # Against Accel-Sim's own statistics for the reference traces (SM7_QV100 plus
  # -gpgpu_perf_sim_memcpy 0, as they were produced): the same L1D and L2
  # access counts per global read/write (atomics are reads at L2, as in
  # GPGPU-Sim), and miss rates within 2 percentage points, Accel-Sim's pending
  # and MSHR hits counting as hits.
  shared=../shared
  printf -- '-gpgpu_perf_sim_memcpy 0\n' >"$work/memcpy-off.config"
  expect_exit 0 "$GCR" import-config -o "$work/qv100.json" \
    "$shared/gpgpusim-configs/SM7_QV100/gpgpusim.config" \
    "$shared/gpgpusim-configs/SM7_QV100/trace.config" "$work/memcpy-off.config"
  n=0
  for dir in "$shared"/traces/accelsim/*/; do
    [ -f "$dir/accelsim-qv100.json" ] || continue
    n=$((n + 1))
    name=$(basename "$dir")
    expect_exit 0 "$GCR" run -q --config "$work/qv100.json" --json "$work/$name.json" "$dir"
    python3 tests/cli/fidelity.py "$work/$name.json" "$dir/accelsim-qv100.json" "$name" \
      >>"$work/fidelity.txt" || fail "fidelity: $name"
  done
  [ "$n" -ge 5 ] || fail "found only $n reference traces under $shared/traces/accelsim"
  cat "$work/fidelity.txt"
  ;;
silicon-h200)
  # examples/configs/h200.json against the counters an H200 measured for the
  # kernels behind five reference traces (tests/cli/silicon_h200.py: per launch,
  # L1 load/store sectors and hit rate, L2 read sectors and hit rate, DRAM reads).
  python3 tests/cli/silicon_h200.py "$GCR" examples/configs/h200.json ../shared --check \
    >"$work/silicon.txt" || { cat "$work/silicon.txt" >&2; fail "silicon-h200 tolerances"; }
  cat "$work/silicon.txt"
  ;;
progress)
  # Progress goes to stderr only when it is a terminal (script gives a pseudo-terminal).
  script -qec "\"$GCR\" run --config examples/configs/volta80.json examples/traces/vecadd.txt" \
    /dev/null >"$work/tty" 2>&1 || fail "run under a terminal failed"
  contains "$work/tty" "gcreplay: examples/traces/vecadd.txt 100.0%"
  contains "$work/tty" "M warp instructions"
  expect_exit 0 "$GCR" run --config examples/configs/volta80.json examples/traces/vecadd.txt
  [ ! -s "$work/err" ] || fail "progress written although stderr is not a terminal"
  ;;
golden)
  # Full reports compared byte for byte with committed ones. After a deliberate
  # change, regenerate with GCR_UPDATE_GOLDEN=1 and review the diff.
  for pair in "volta80 vecadd" "volta80 stencil" "fermi28 stencil" "volta80-analyses stencil"; do
    set -- $pair
    want=tests/cli/golden/$2--$1.json
    expect_exit 0 "$GCR" run -q --json-detail full --config "examples/configs/$1.json" --json "$work/got.json" \
      "examples/traces/$2.txt"
    if [ "${GCR_UPDATE_GOLDEN:-}" = 1 ]; then
      cp "$work/got.json" "$want"
    elif ! cmp -s "$work/got.json" "$want"; then
      fail "report differs from $want"
      diff "$want" "$work/got.json" | head -20 >&2
    fi
  done
  ;;
timing)
  # Timing mode end to end: --timing adds the timing table and JSON sections
  # with figures that fit together; a bad timing key names its JSON path.
  expect_exit 0 "$GCR" run --timing --json-detail full --config examples/configs/volta80.json --json "$work/t.json" \
    examples/traces/vecadd.txt examples/traces/stencil.txt
  contains "$work/out" "limit%"
  contains "$work/out" "DRAM-lat"
  check_report "$work/t.json"
  python3 - "$work/t.json" <<'PY' || fail "timing sections"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["config"]["timing"]["enabled"] is True
ks = [k["timing"] for k in r["kernels"]]
tot = r["total"]["timing"]
assert tot["cycles"] == sum(k["cycles"] for k in ks), "kernels run one after another"
for t in ks + [tot]:
    assert t["cycles"] > 0 and abs(t["ipc_warp"] - t["warp_instructions"] / t["cycles"]) < 1e-6
    for name, res in t["resources"].items():
        assert 0 <= res["utilisation_mean"] <= res["utilisation_max"] <= 1.0 + 1e-9, name
assert tot["memory_latency"]["dram"]["requests"] > 0
PY
  # The effective config of a timing report is a config that gives the same report.
  python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))['config'], open(sys.argv[2], 'w'))" \
    "$work/t.json" "$work/effective.json"
  expect_exit 0 "$GCR" run -q --json-detail full --config "$work/effective.json" --json "$work/t2.json" \
    examples/traces/vecadd.txt examples/traces/stencil.txt
  cmp -s "$work/t.json" "$work/t2.json" || python3 - "$work/t.json" "$work/t2.json" <<'PY' || fail "effective timing config differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["config"] == b["config"] and a["kernels"] == b["kernels"] and a["total"] == b["total"]
PY
  # Without --timing the report has no timing (functional reports are unchanged).
  expect_exit 0 "$GCR" run -q --config examples/configs/volta80.json --json "$work/f.json" \
    examples/traces/vecadd.txt
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert 'timing' not in r['total'] and 'timing' not in r['config']" "$work/f.json" || fail "functional report has timing"
  printf '{"timing": {"enabled": true, "latency": {"l1": 0}}}' >"$work/bad.json"
  expect_exit 1 "$GCR" run --config "$work/bad.json" examples/traces/vecadd.txt
  contains "$work/err" "bad.json: \$.timing.latency.l1: expected an integer between 1 and"
  # The importer fills the timing section from the GPGPU-Sim options.
  expect_exit 0 "$GCR" import-config -o "$work/qv100.json" \
    ../shared/gpgpusim-configs/SM7_QV100/gpgpusim.config ../shared/gpgpusim-configs/SM7_QV100/trace.config
  python3 - "$work/qv100.json" <<'PY' || fail "imported timing section"
import json, sys
t = json.load(open(sys.argv[1]))["timing"]
assert t["clocks_mhz"] == {"core": 1132.0, "noc": 1132.0, "l2": 1132.0, "dram": 850.0}, t
assert t["issue_per_cycle"] == 4 and t["kernel_launch_latency"] == 5000
assert t["latency"]["l1"] == 20 and t["latency"]["l2"] == 160 and t["latency"]["dram"] == 100
assert t["bandwidth"]["dram_channel_bytes"] == 32 and t["dram_channels"] == 32
assert t["dram_rows"]["tRCD"] == 12 and t["dram_rows"]["CL"] == 12 and not t["enabled"]
PY
  ;;
timing-validate)
  # The validation harness against Accel-Sim's cycles, on the two smallest
  # reference traces (all five: see src/timing/README.md); it must run and
  # stay within 20 % on these.
  printf -- '-gpgpu_perf_sim_memcpy 0\n' >"$work/memcpy-off.config"
  expect_exit 0 "$GCR" import-config -o "$work/qv100.json" \
    ../shared/gpgpusim-configs/SM7_QV100/gpgpusim.config \
    ../shared/gpgpusim-configs/SM7_QV100/trace.config "$work/memcpy-off.config"
  expect_exit 0 python3 tests/cli/timing_validate.py "$GCR" "$work/qv100.json" --max-error 20 \
    ../shared/traces/accelsim/vectoradd-100 ../shared/traces/accelsim/matrixmul-32x32
  contains "$work/out" "mean |cycle error| over 2 traces"
  contains "$work/out" "vectoradd-100"
  cat "$work/out"
  ;;
dcl1)
  # Every DC-L1 example config on every trace format (text, native, Accel-Sim)
  # with every analysis: the run succeeds, the report keeps its shape, and the
  # DC-L1 section is consistent with itself and with the L1D figures.
  expect_exit 0 "$GCR" convert examples/traces/stencil.txt "$work/stencil.gcrt"
  for cfg in examples/configs/volta80-dcl1-*.json; do
    python3 - "$cfg" examples/configs/volta80-analyses.json "$work/cfg.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["analyses"] = json.load(open(sys.argv[2]))["analyses"]
json.dump(c, open(sys.argv[3], "w"))
PY
    for tr in examples/traces/stencil.txt "$work/stencil.gcrt" \
              ../shared/traces/accelsim/vectoradd-100; do
      expect_exit 0 "$GCR" run --json-detail full --config "$work/cfg.json" --json "$work/r.json" "$tr"
      contains "$work/out" "L1D dcl1:"
      check_report "$work/r.json"
      python3 - "$work/r.json" <<'PY' || fail "dcl1 section of $cfg on $tr"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["total"]
d = t["L1D"]["dcl1"]
Y, Z = d["nodes"], d["clusters"]
assert Y * 2 == r["config"]["gpu"]["sms"] and Y % Z == 0
pn = d["per_node"]
assert len(pn["accesses"]) == Y
# every L1D access is served by exactly one node
assert sum(pn["accesses"]) == t["L1D"]["accesses"], (pn["accesses"], t["L1D"]["accesses"])
assert sum(pn["misses"]) == t["L1D"]["misses"]
assert d["noc1"]["requests"] == t["L1D"]["accesses"]
assert sum(pn["noc1_bytes"]) == d["noc1"]["bytes"]
assert sum(pn["noc2_bytes"]) == d["noc2"]["bytes"]
assert d["noc2"]["fill_bytes"] == t["traffic"]["l2_to_l1_bytes"]
assert d["noc2"]["writeback_bytes"] == t["traffic"]["l1_writeback_bytes"]
assert d["load"]["max_accesses"] == max(pn["accesses"])
c = d["copies_at_kernel_end"]
assert c["samples"] == len(r["kernels"]) and 1 <= c["max"] <= c["limit"] == Z
# the replication analysis, counting copies over time, never sees more than Z
assert t["analyses"]["replication"]["max_copies"] <= Z
PY
    done
  done
  ;;
long-nonmem)
  # Runs of non-memory instructions are applied a batch of rounds at a time
  # (sleep_nonmem in src/replay/replay.c), by different rules under LRR and
  # GTO. The same trace with every run split into pieces, which shortens the
  # batches, must give the same report.
  python3 - "$work" <<'PY'
import random, sys
work = sys.argv[1]
rng = random.Random(7)
ctas, warps = 12, 3
lines = {"long": ["#gcreplay-text 1", "kernel 1 k grid=%d,1,1 block=%d,1,1 shmem=0 regs=8" % (ctas, 32 * warps)],
         "split": []}
lines["split"] = list(lines["long"])
for c in range(ctas):
    for w in range(warps):
        for k in range(6):
            n = rng.choice([1, 3, 5000, 9000, 20000, 70000])
            lines["long"].append("%d %d compute %d" % (c, w, n))
            while n:
                piece = min(n, 1000)
                lines["split"].append("%d %d compute %d" % (c, w, piece))
                n -= piece
            addr = 0x10000000 + rng.randrange(1 << 16) * 128
            for name in ("long", "split"):
                lines[name].append("%d %d 0x%x load global 4 0xffffffff 0x%x+4" % (c, w, 16 * k, addr))
for name in ("long", "split"):
    lines[name].append("end 1")
    open("%s/%s.txt" % (work, name), "w").write("\n".join(lines[name]) + "\n")
PY
  python3 - examples/configs/volta80.json "$work/volta80-gto.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["scheduling"]["warp_policy"] = "gto"
json.dump(c, open(sys.argv[2], "w"))
PY
  for cfg in examples/configs/volta80.json examples/configs/fermi28.json "$work/volta80-gto.json"; do
    expect_exit 0 "$GCR" run -q --config "$cfg" --json "$work/long.json" "$work/long.txt"
    expect_exit 0 "$GCR" run -q --config "$cfg" --json "$work/split.json" "$work/split.txt"
    python3 - "$work/long.json" "$work/split.json" <<'PY' || fail "long non-memory runs change the report with $cfg"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["total"]["instructions"]["nonmemory"] > 500000, a["total"]["instructions"]
assert a["kernels"] == b["kernels"] and a["total"] == b["total"]
PY
  done
  # The largest count the formats allow replays in moments, exactly counted.
  expect_exit 0 "$GCR" run -q --config examples/configs/volta80.json --json "$work/vf.json" \
    trace-formats/text/fixtures/valid-forms.txt
  python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["total"]["instructions"]["nonmemory"] == 4294967295' \
    "$work/vf.json" || fail "valid-forms.txt: wrong non-memory count"
  ;;
bench-small)
  # The benchmark runs end to end (tiny size; figures are not judged here).
  expect_exit 0 "$GCR" bench --instructions 20000 --sms 8
  contains "$work/out" "mem-insn/s"
  contains "$work/out" "host speed before: "
  contains "$work/out" "host speed after: "
  expect_exit 0 "$GCR" bench --instructions 20000 --sms 8 --timing
  contains "$work/out" "L2 64 slices, timing"
  contains "$work/out" "peak-RSS-MB"
  expect_exit 0 "$GCR" bench --instructions 20000 --sms 8 --repeat 2
  contains "$work/out" "the fastest of 2 replays"
  contains "$work/out" "cpu-s"
  expect_exit 2 "$GCR" bench --instructions 20000 --repeat 0
  # A fixed host prefetch level gets every issue (the column's shares);
  # timing mode does not prefetch, and says so.
  expect_exit 0 "$GCR" bench --instructions 20000 --sms 8 --host-prefetch l1
  contains "$work/out" "prefetch"
  contains "$work/out" " 0/100/0"
  expect_exit 0 "$GCR" bench --instructions 20000 --sms 8 --timing
  grep -q "typical    full .* -$" "$work/out" || fail "timing mode shows prefetch shares"
  expect_exit 2 "$GCR" bench --instructions 20000 --host-prefetch far
  ;;
host-prefetch)
  # The host prefetch level changes nothing but the host's caches: every
  # level, and auto (which switches levels as it measures: this trace runs
  # through several of its trial epochs), gives the same report byte for
  # byte, with analyses and several organisations.
  expect_exit 0 "$GCR" bench --instructions 400000 --sms 80 --keep "$work/bench"
  # auto ran trials at more than one level on this trace (its shares column).
  awk '$2 == "full" { n = split($NF, s, "/"); k = 0; for (i = 1; i <= n; i++) k += s[i] > 0;
                      exit !(n == 3 && k >= 2) }' "$work/out" ||
    fail "auto did not switch levels: $(grep full "$work/out")"
  tr="$work/bench/bench-typical-400000.gcrt"
  for cfg in examples/configs/volta80-analyses.json examples/configs/volta80-dcl1-sh40.json \
             examples/configs/qv100.json; do
    for level in auto queues l1 l2; do
      expect_exit 0 "$GCR" run -q --host-prefetch "$level" --analysis-thread off \
        --config "$cfg" --json "$work/pf-$level.json" "$tr"
    done
    for level in queues l1 l2; do
      cmp -s "$work/pf-auto.json" "$work/pf-$level.json" ||
        fail "host prefetch $level changed the report ($cfg)"
    done
  done
  expect_exit 2 "$GCR" run --host-prefetch sometimes --config examples/configs/volta80.json \
    examples/traces/vecadd.txt
  contains "$work/err" "auto, queues, l1 or l2"
  ;;
colab)
  # COLAB on every trace format (Accel-Sim directory, its native conversion,
  # the text examples) and beside every analysis; it cuts L2 reads on the
  # broadcast example.
  acc=../shared/traces/accelsim/sgemm_tiled
  expect_exit 0 "$GCR" run --config examples/configs/volta80-colab.json --json "$work/a.json" "$acc"
  contains "$work/out" "L1D colab:  read_misses 10752  redirected 8448  served 7168"
  check_report "$work/a.json"
  expect_exit 0 "$GCR" convert "$acc" "$work/sg.gcrt"
  expect_exit 0 "$GCR" run -q --config examples/configs/volta80-colab.json --json "$work/n.json" "$work/sg.gcrt"
  python3 - "$work/a.json" "$work/n.json" <<'PY' || fail "COLAB: Accel-Sim and native reports differ"
import json, sys
a, n = (json.load(open(p))["total"] for p in sys.argv[1:])
assert a == n
assert a["L1D"]["colab"]["served"] > 0
PY
  python3 - examples/configs/volta80-analyses.json "$work/all.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["l1d"]["organization"] = "colab"
c["analyses"]["remote_probe"] = {"group_size": 8, "policies": [{}, {"C": 4, "S": 2, "P": 0.5}]}
json.dump(c, open(sys.argv[2], "w"))
PY
  for tr in "$acc" examples/traces/stencil.txt; do
    expect_exit 0 "$GCR" run -q --config "$work/all.json" --json "$work/r.json" "$tr"
    check_report "$work/r.json"
  done
  expect_exit 0 "$GCR" run -q --config examples/configs/volta80.json --json "$work/p.json" examples/traces/broadcast.txt
  expect_exit 0 "$GCR" run -q --config examples/configs/volta80-colab.json --json "$work/c.json" examples/traces/broadcast.txt
  python3 - "$work/p.json" "$work/c.json" <<'PY' || fail "COLAB: L2 reads on broadcast.txt"
import json, sys
p, c = (json.load(open(f))["total"] for f in sys.argv[1:])
# 40 SMs x 8 lines of x + 320 private lines of W; COLAB fetches x once per
# cluster of 8 SMs (5 clusters): 40 + 320.
assert p["L2"]["reads"]["accesses"] == 640, p["L2"]["reads"]
assert c["L2"]["reads"]["accesses"] == 360, c["L2"]["reads"]
assert c["L1D"]["colab"]["l2_read_requests_avoided"] == 280
PY
  ;;
shared-orgs)
  # The shared and DynEB organisations on every trace format with every
  # analysis: the report keeps its shape, the organisation reports its
  # section and table line, and a shared L1 never holds a replica.
  expect_exit 0 "$GCR" convert examples/traces/stencil.txt "$work/stencil.gcrt"
  for cfg in volta80-shared fermi28-dyneb; do
    python3 - "examples/configs/$cfg.json" examples/configs/volta80-analyses.json "$work/$cfg.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["analyses"] = json.load(open(sys.argv[2]))["analyses"]
json.dump(c, open(sys.argv[3], "w"))
PY
    org=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["l1d"]["organization"])' "$work/$cfg.json")
    for tr in examples/traces/stencil.txt "$work/stencil.gcrt" ../shared/traces/accelsim/matrixmul-32x32 ../shared/traces/accelsim/jacobi2d; do
      expect_exit 0 "$GCR" run --json-detail full --config "$work/$cfg.json" --json "$work/r.json" "$tr"
      contains "$work/out" "L1D $org:  local"
      check_report "$work/r.json"
      python3 - "$work/r.json" "$org" <<'PY' || fail "$cfg on $tr: organisation figures"
import json, sys
r, org = json.load(open(sys.argv[1])), sys.argv[2]
t = r["total"]
sec = t["L1D"][org]
acc = sec["accesses"]
assert acc["local"]["reads"] + acc["local"]["writes"] + acc["remote"]["reads"] + acc["remote"]["writes"] == t["L1D"]["accesses"]
assert sum(sec["served_per_l1"]) == t["L1D"]["accesses"]
assert set(t["analyses"]) == {"replication", "line_utilisation", "sharing", "locality", "reuse_distance", "miss_classes"}
rep = t["analyses"]["replication"]
if org == "shared":
    assert rep["replicated_misses"]["all"] == 0 and rep["max_copies"] <= 1, rep
    assert rep["replicas_per_line"] == 0, rep
PY
    done
  done
  ;;
analyses-cost)
  # The analyses' cost benchmark runs end to end (tiny size; figures are not judged).
  expect_exit 0 python3 tests/bench/analyses_cost.py --instructions 20000 --rounds 1 \
    --gcreplay "$GCR"
  for v in plain sharing "reuse_distance@1%" "all, rd@1%"; do
    contains "$work/out" "$v "
  done
  ;;
accelsim-speedup)
  # The comparison with Accel-Sim's recorded times runs end to end (one run each; figures are
  # not judged): two builds (the same binary twice) give byte-identical reports, and every
  # reference trace gets a row.
  expect_exit 0 python3 tests/bench/accelsim_speedup.py --runs 1 "$GCR" "$GCR"
  contains "$work/out" "same reports"
  for t in "$SRC"/../shared/traces/accelsim/*/accelsim-qv100.json; do
    contains "$work/out" "$(basename "$(dirname "$t")") "
  done
  contains "$work/out" "build 1: median ratio"
  ;;
compare-builds)
  # The A/B comparison of two builds runs end to end (tiny size; figures are
  # not judged): the same binary twice; a B whose results differ (a wrapper
  # that replays with 8 L1 sets whatever config it is given); a revision
  # built from git; an A that is neither a file nor a revision.
  expect_exit 0 python3 tests/bench/compare_builds.py --instructions 20000 --pairs 2 \
    --a-rate 1e6 "$GCR" "$GCR"
  contains "$work/out" "reports: same totals"
  contains "$work/out" "2 interleaved pairs"
  contains "$work/out" "B/A CPU time:  median"
  contains "$work/out" "B/A wall time: median"
  contains "$work/out" "B at the host speed where A read 1.00 M insn/s"
  echo '{"gpu": {"sms": 80}, "l1d": {"sets": 8}}' >"$work/other.json"
  printf '%s\n' '#!/usr/bin/env bash' 'args=(); prev=' \
    'for a in "$@"; do [ "$prev" = --config ] && [ "$1" = run ] && a=$OTHER_CONFIG; args+=("$a"); prev=$a; done' \
    'exec "$GCR_REAL" "${args[@]}"' >"$work/other-l1"
  chmod +x "$work/other-l1"
  OTHER_CONFIG=$work/other.json GCR_REAL=$GCR expect_exit 0 python3 tests/bench/compare_builds.py \
    --instructions 20000 --pairs 1 "$GCR" "$work/other-l1"
  contains "$work/out" "reports: totals differ"
  expect_exit 1 python3 tests/bench/compare_builds.py --pairs 1 no-such-build "$GCR"
  contains "$work/err" "compare_builds: A: no-such-build is neither a file nor a git revision"
  if git -C "$SRC" rev-parse --verify -q HEAD >/dev/null; then
    expect_exit 0 python3 tests/bench/compare_builds.py --instructions 20000 --pairs 1 \
      --buildtype plain HEAD "$GCR"
    contains "$work/err" "building A = HEAD"
    contains "$work/out" "  A = HEAD"
  fi
  ;;
onepass|onepass-references)
  # One pass, many memory systems: every example config, and generated ones for every
  # registered L1 organisation and analysis, GTO with and without a miss stall, replayed as
  # variants of one run. Each variant's report (--json-dir, full detail) is byte for byte the
  # report of its own run, but for the "variant" member of its head; the combined --json
  # holds the same reports in --config order. Groupable and non-groupable variants mix
  # (several GPUs, VWS and GTO with a stall each need a pass of their own).
  # "onepass" replays the small bundled traces (in every build, the sanitizers' included);
  # "onepass-references" adds a reference trace (two kernels of Accel-Sim's format, with
  # inter-kernel state), in the optimised build only, where its 100-odd replays are quick.
  python3 - "$GCR" "$work" "$SRC/../shared/traces" "$case_name" <<'PY' || fail "one-pass reports differ from single runs"
import glob, json, os, re, subprocess, sys
gcr, work, shared, case = sys.argv[1:]
def names(meson, var):
    text = open(meson).read()
    return re.findall(r"'(\w+)'", re.search(var + r"\s*=\s*\[(.*?)\]", text, re.S).group(1))
orgs, analyses = names("src/orgs/meson.build", "org_names"), names("analyses/meson.build", "analysis_names")
configs = sorted(glob.glob("examples/configs/*.json"))
base = json.load(open("examples/configs/volta80.json"))
def generated(name, change):
    cfg = json.loads(json.dumps(base))
    change(cfg)
    path = f"{work}/{name}.json"
    json.dump(cfg, open(path, "w"))
    configs.append(path)
for org in orgs:  # every organisation on the same GPU: one pass
    # (tsc and dsc model write-evicting, unsectored L1s only)
    evict = {"write_policy": "write_evict", "write_allocate": "none", "sectored": False,
             org: {"index": "linear"}} if org in ("tsc", "dsc") else {}
    generated(f"org-{org}", lambda c, o=org, e=evict: c["l1d"].update(organization=o, **e))
generated("all-analyses", lambda c: c.update(analyses={a: {} for a in analyses}))
generated("gto-stall", lambda c: c["scheduling"].update(warp_policy="gto", gto_miss_stall=8))
generated("gto-nostall", lambda c: c["scheduling"].update(warp_policy="gto", gto_miss_stall=0))
seen_orgs = {json.load(open(c)).get("l1d", {}).get("organization", "private") for c in configs}
seen_an = set().union(*(json.load(open(c)).get("analyses", {}) for c in configs))
assert seen_orgs >= set(orgs) and seen_an >= set(analyses), (seen_orgs, seen_an)
# Atomics, reductions and an L1 bypass (the text fixture), two kernels, broadcast reads.
traces = ["trace-formats/text/fixtures/valid-example.txt", "examples/traces/stencil.txt",
          "examples/traces/broadcast.txt"]
if case == "onepass-references":
    traces[1] = f"{shared}/accelsim/jacobi2d"
def strip_variant(text):  # the head's "variant" member, as the writer puts it
    v = text.index('"variant"')
    c = text.index('"config"', v)
    return text[:text.rindex(",", 0, v)] + text[text.rindex(",", 0, c):]
for timing in ([], ["--timing"]):
    run = configs if not timing else configs[:3] + [f"{work}/org-dcl1.json"]
    out = f"{work}/dir{len(timing)}"
    os.makedirs(out)
    cmd = [gcr, "run", "-q", "--json-detail", "full", "--json-dir", out, "--json",
           f"{work}/all.json"] + timing
    for c in run:
        cmd += ["--config", c]
    subprocess.run(cmd + traces, check=True)
    combined = json.load(open(f"{work}/all.json"))["variants"]
    assert len(combined) == len(run)
    passes = {}
    for i, c in enumerate(run):
        name = os.path.basename(c)[:-5]
        mine = open(f"{out}/{name}.json").read()
        assert json.loads(mine) == combined[i], name
        head = combined[i]["variant"]
        assert head["name"] == name and name in head["pass_variants"], head
        passes.setdefault(head["pass"], []).append(name)
        single = f"{work}/single.json"
        subprocess.run([gcr, "run", "-q", "--json-detail", "full", "--json", single, "--config", c]
                       + timing + traces, check=True)
        assert strip_variant(mine) == open(single).read(), f"{name}{timing}: not the single run's report"
    if not timing:
        shared_pass = passes[combined[configs.index("examples/configs/volta80.json")]["variant"]["pass"]]
        assert {"volta80-shared", "volta80-colab", "org-tsc", "all-analyses"} <= set(shared_pass), shared_pass
        i = [os.path.basename(c)[:-5] for c in run].index("gto-nostall")
        assert "own_pass" not in combined[i]["variant"], combined[i]["variant"]
        for alone in ("gto-stall", "volta80-vws"):
            i = [os.path.basename(c)[:-5] for c in run].index(alone)
            assert passes[combined[i]["variant"]["pass"]] == [alone], passes
            assert "own_pass" in combined[i]["variant"], combined[i]["variant"]
    else:
        assert all(len(p) == 1 for p in passes.values()), passes
PY
  # A repeated config is a variant of its own (name~2), and a bad config among several
  # names its file and JSON path before anything runs.
  expect_exit 0 "$GCR" run -q --config examples/configs/volta80.json \
    --config examples/configs/volta80.json --json-dir "$work" examples/traces/stencil.txt
  python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); a.pop("variant"); b.pop("variant"); assert a == b' \
    "$work/volta80.json" "$work/volta80~2.json" || fail "a repeated config's reports differ"
  echo '{"l1d": {"ways": "many"}}' >"$work/bad.json"
  expect_exit 1 "$GCR" run -q --config examples/configs/volta80.json --config "$work/bad.json" \
    --json "$work/none.json" examples/traces/stencil.txt
  contains "$work/err" "$work/bad.json: \$.l1d.ways"
  [ ! -e "$work/none.json" ] || fail "a failed run left its report"
  ;;
*)
  echo "unknown case $case_name" >&2
  exit 2
  ;;
esac
[ "$fails" -eq 0 ]
