#!/usr/bin/env bash
# kill -9 in the middle of `gemmtune tune`, then rerun: the rerun tunes only what is missing and
# the results file ends with every problem exactly once.
set -euo pipefail
gemmtune=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
untuned=$work/untuned.csv
out=$work/results.csv
for m in 640 704 768 832 896 960 1024 1088; do
  echo "GemmTunableOp_BFloat16_TN,tn_${m}_64_512_ld_512_512_${m}" >>"$untuned"
done
total=$(wc -l <"$untuned")
entries() { if [ -f "$out" ]; then grep -vc '^Validator,' "$out" || true; else echo 0; fi; }

"$gemmtune" tune "$untuned" -o "$out" --backend cpu --max-tuning-duration-ms 20 >"$work/first.log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  [ "$(entries)" -ge 2 ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.1
done
kill -9 $pid 2>/dev/null || { echo "the first run finished before it could be killed"; cat "$work/first.log"; exit 1; }
wait $pid 2>/dev/null || true
first=$(entries)
echo "killed after $first of $total problems"
[ "$first" -ge 1 ] && [ "$first" -lt "$total" ] || { echo "expected a partial results file"; exit 1; }

"$gemmtune" tune "$untuned" -o "$out" --backend cpu --max-tuning-duration-ms 20 >"$work/second.log" 2>&1
grep -q "$((total - first)) tuned, $first already tuned (skipped)" "$work/second.log" || {
  echo "the rerun did not resume"; cat "$work/second.log"; exit 1; }
[ "$(entries)" -eq "$total" ] || { echo "expected $total entries, got $(entries)"; cat "$out"; exit 1; }
dups=$(grep -v '^Validator,' "$out" | cut -d, -f1,2 | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] || { echo "duplicate entries"; cat "$out"; exit 1; }
echo "resumed: $((total - first)) tuned on the rerun, every problem once"
