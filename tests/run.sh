#!/usr/bin/env bash
# The whole test suite: unit, CLI and golden tests in an optimised build, the
# same tests under AddressSanitizer + UndefinedBehaviorSanitizer, short bounded
# libFuzzer runs of every fuzz target (readers, engine, config, importer: clang;
# tests/fuzz/README.md), and the analysis and decoding threads under ThreadSanitizer.
# Warnings are errors.
# Ends with "N passed, N failed" and exits non-zero if anything failed.
set -u
cd "$(dirname "$0")/.."
bash tests/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }

out=build-tests
passed=0
failed=0
skipped=0

setup() { # dir, meson options...
  local dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >"$dir.setup.log" 2>&1
  else
    meson setup "$dir" "$@" >"$dir.setup.log" 2>&1
  fi || { cat "$dir.setup.log"; return 1; }
  ninja -C "$dir" >"$dir.build.log" 2>&1 || { cat "$dir.build.log"; return 1; }
}

count() { # dir: add the results of its meson-logs/testlog.json
  local log=$1/meson-logs/testlog.json
  if [ ! -f "$log" ]; then # no results at all is a failure, not a pass
    echo "no test results in $1"; failed=$((failed + 1)); return
  fi
  read -r p f k < <(python3 - "$log" <<'PY'
import json, sys
p = f = k = 0
for line in open(sys.argv[1]):
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"):
        p += 1
    elif r == "SKIP":
        k += 1
    else:
        f += 1
print(p, f, k)
PY
)
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
}

suite() { # label dir test-args...
  local label=$1 dir=$2; shift 2
  echo "== $label"
  rm -f "$dir/meson-logs/testlog.json"
  meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" | grep -vE "^ *[0-9]+/[0-9]+ .* OK " || true
  count "$dir"
}

mkdir -p "$out"
if setup "$out/release" --buildtype=release -Dwerror=true; then
  suite "release build" "$out/release" --no-suite fuzz
else
  failed=$((failed + 1)); echo "release build failed"
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
if setup "$out/sanitize" --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false \
     -Dwerror=true; then
  suite "AddressSanitizer + UBSan build" "$out/sanitize" --no-suite fuzz --no-suite slow
else
  failed=$((failed + 1)); echo "sanitizer build failed"
fi

# install-deps.sh installs clang, so its absence is a failure, not a skip.
if command -v clang >/dev/null && CC=clang setup "$out/fuzz" --buildtype=debug -Dwerror=true; then
  suite "fuzz (clang, libFuzzer)" "$out/fuzz" --suite fuzz
else
  failed=$((failed + 1)); echo "clang fuzz build failed (or clang is missing)"
fi

# The analyses' thread (src/replay/bus.h) and the decoding thread
# (src/trace/decode_ahead.h) under ThreadSanitizer: the queue's unit test, the
# decoding thread's against reading without it, and a threaded run of every
# analysis compared with an unthreaded one. Only what they need is built.
tsan=$out/tsan
if { [ -f "$tsan/build.ninja" ] && meson setup --reconfigure "$tsan" --buildtype=debug \
       -Db_sanitize=thread -Db_lundef=false -Dwerror=true >"$tsan.setup.log" 2>&1 ||
     meson setup "$tsan" --buildtype=debug -Db_sanitize=thread -Db_lundef=false \
       -Dwerror=true >"$tsan.setup.log" 2>&1; } &&
   ninja -C "$tsan" tests/test-replay-bus tests/test-trace-decode-ahead src/gcreplay \
     >"$tsan.build.log" 2>&1; then
  export TSAN_OPTIONS=halt_on_error=1
  suite "ThreadSanitizer (analysis and decoding threads)" "$tsan" --no-rebuild replay-bus \
    trace-decode-ahead cli-analysis-thread
else
  cat "$tsan.setup.log" "$tsan.build.log" 2>/dev/null | tail -20
  failed=$((failed + 1)); echo "ThreadSanitizer build failed"
fi

if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
