#!/usr/bin/env bash
# bench_sigint.sh GEMMTUNE DIR: Ctrl-C during a bench run. Once: it stops after the case in flight
# and exits 5 (partial), its CSV holding the cases measured. Twice: it exits 130 at once, without
# waiting for the case in flight (a large one on the CPU takes minutes), the CSV still holding
# the cases finished before.
set -u
gt=$1; dir=$2
rm -rf "$dir"; mkdir -p "$dir"
pid=
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null' EXIT  # no bench left running on a failure
fail() { echo "FAIL: $*"; for f in "$dir"/*; do echo "--- $f"; cat "$f"; done; exit 1; }
# A small case first, so that the CSV has a row; then cases that take a second or more each (bfloat16
# Default on the CPU is a plain loop).
cat >"$dir/w.json" <<'JSON'
{
  "operator": "gemm",
  "iterations": 50,
  "input_shape_list": [
    [[16, 16], [16, 16]],
    [[256, 256], [256, 256]],
    [[256, 256], [256, 256]],
    [[256, 256], [256, 256]]
  ],
  "dtype": ["bfloat16"]
}
JSON
run=(bench "$dir/w.json" --backend cpu --max-tuning-duration-ms 2)
rows() { [ -f "$1" ] && grep -c '^' "$1" || echo 0; }  # the header and a line per row
wait_for_rows() {  # FILE N: until FILE holds N lines (at most 60 s)
  for _ in $(seq 600); do
    [ "$(rows "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}
interrupt() {  # PID STDERR: SIGINT, and wait until it was seen
  kill -INT "$1"
  for _ in $(seq 100); do
    grep -q "stopping after the case in flight" "$2" && return 0
    sleep 0.02
  done
  return 1
}

# One SIGINT: the case in flight ends, then the run.
"$gt" "${run[@]}" --output-csv "$dir/once.csv" >"$dir/once.stdout" 2>"$dir/once.stderr" &
pid=$!
wait_for_rows "$dir/once.csv" 3 || fail "no rows appeared"
interrupt $pid "$dir/once.stderr" || fail "no message on stderr"
wait $pid; rc=$?
pid=
[ $rc = 5 ] || fail "one SIGINT: exit code $rc, expected 5"

# Two SIGINTs: out at once.
"$gt" "${run[@]}" --output-csv "$dir/twice.csv" >"$dir/twice.stdout" 2>"$dir/twice.stderr" &
pid=$!
wait_for_rows "$dir/twice.csv" 3 || fail "no rows appeared (twice)"
before=$(rows "$dir/twice.csv")
interrupt $pid "$dir/twice.stderr" || fail "no message on stderr (twice)"
kill -INT $pid
start=$(date +%s%N)
wait $pid; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc = 130 ] || fail "two SIGINTs: exit code $rc, expected 130"
[ $ms -lt 3000 ] || fail "two SIGINTs took $ms ms to exit"
grep -q "stopped at once" "$dir/twice.stderr" || fail "no 'stopped at once' on stderr"
[ "$(rows "$dir/twice.csv")" -ge "$before" ] || fail "the CSV lost rows"
pid=
echo ok
