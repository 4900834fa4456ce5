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
    [ "$(grep -cE '^ +[0-9]+ \| ' "$1" 2>/dev/null || true)" -ge "$2" ] 2>/dev/null && return 0
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

# Two SIGINTs: out at once, without the summary. Each shape here takes seconds (40 iterations,
# each after a cache flush), so the shape in flight is still running when the second signal
# comes; it is sent once the first has been seen, since two signals sent together may merge.
slow=(mamf --backend cpu --dtype float32 --m_range 0 6400 32 --n 48 --k 40 --num_iterations 40
      --num_warmup_iterations 1 --max-warmup-seconds 0.2)
"$gt" "${slow[@]}" --output_file "$dir/twice.txt" >"$dir/twice.stdout" 2>"$dir/twice.stderr" &
pid=$!
wait_for_lines "$dir/twice.txt" 1 || fail "no shape lines appeared (twice)"
kill -INT $pid
for _ in $(seq 100); do
  grep -q "stopping after the shape in flight" "$dir/twice.stderr" && break
  sleep 0.02
done
kill -INT $pid
start=$(date +%s%N)
wait $pid; rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc = 130 ] || fail "two SIGINTs: exit code $rc, expected 130"
[ $ms -lt 5000 ] || fail "two SIGINTs took $ms ms to exit"
grep -q '^Tried ' "$dir/twice.txt" && fail "a summary was written after the second SIGINT"
echo ok
