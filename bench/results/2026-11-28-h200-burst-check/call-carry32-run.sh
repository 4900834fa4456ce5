#!/usr/bin/env bash
# Device-side, call 1: the full LLM benchmark at the defaults (run 83), on a fresh machine.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gt32 && rm -rf $work && mkdir -p $work && tar xJf "$here/bins.tar.xz" -C $work
bins=$work/bins
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $OUT/device.txt 2>&1
start=$(date +%s)
timeout 560 $bins/gemmtune_llm_bench --time-budget 400 --output $OUT/llm.md --details $OUT/llm-details.md > $OUT/llm-stdout.txt 2> $OUT/llm-stderr.txt
echo "llm bench rc $? in $(( $(date +%s) - start )) s" >> $OUT/device.txt
cat $OUT/device.txt
grep -A 12 "^## Summary" $OUT/llm.md | cut -c1-400
