#!/usr/bin/env bash
# sigint.sh GEMMTUNE DIR: Ctrl-C during a sweep. Once: the sweep stops after the shape in flight,
# prints the summary, writes the output file and exits 5 (partial). Twice: exits 130 at once.
set -u
gt=$1; dir=$2
rm -rf "$dir"; mkdir -p "$dir"
long=(mamf --backend cpu --dtype float32 --m_range 0 6400 32 --n 48 --k 40 --num_iterations 5
      --num_warmup_iterations 1 --max-warmup-seconds 0.2)
fail() { echo "FAIL: $*"; for f in "$dir"/*; do echo "--- $f"; cat "$f"; done; exit 1; }
wait_for_lines() {  # FILE N: until FILE holds N shape lines (at most 60 s)
  for _ in $(seq 600); do
    [ "$(grep -cE '^ +[0-9]+ \| ' "$1" 2>/dev/null)" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}

# One SIGINT.
"$gt" "${long[@]}" --output_file "$dir/once.txt" >"$dir/once.stdout" 2>"$dir/once.stderr" &
pid=$!
wait_for_lines "$dir/once.txt" 2 || fail "no shape lines appeared"
kill -INT $pid
wait $pid; rc=$?
[ $rc = 5 ] || fail "one SIGINT: exit code $rc, expected 5"
grep -qE '^Interrupted: [0-9]+ of 199 shapes were measured$' "$dir/once.txt" || fail "no 'Interrupted' line in the file"
n=$(grep -cE '^ +[0-9]+ \| ' "$dir/once.txt")
grep -q "^Tried $n shapes => the best outcomes were:$" "$dir/once.txt" || fail "summary does not count the $n shapes"
grep -qE '^geometric mean:  [0-9.]+ TFLOPS$' "$dir/once.txt" || fail "no geometric mean"
grep -q "^Tried $n shapes" "$dir/once.stdout" || fail "summary not printed on stdout"
grep -q "stopping after the shape in flight" "$dir/once.stderr" || fail "no message on stderr"

# Two SIGINTs: out at once, without the summary.
"$gt" "${long[@]}" --output_file "$dir/twice.txt" >"$dir/twice.stdout" 2>&1 &
pid=$!
wait_for_lines "$dir/twice.txt" 2 || fail "no shape lines appeared (twice)"
kill -INT $pid; sleep 0.05; kill -INT $pid
start=$(date +%s%N)
wait $pid; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc = 130 ] || fail "two SIGINTs: exit code $rc, expected 130"
[ $ms -lt 5000 ] || fail "two SIGINTs took $ms ms to exit"
grep -q '^Tried ' "$dir/twice.txt" && fail "a summary was written after the second SIGINT"
echo ok
