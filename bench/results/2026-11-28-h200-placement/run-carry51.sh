#!/usr/bin/env bash
# Device-side (cd508a7 + the benchmark's --placement-probe): the full LLM benchmark on every GPU at once, each evaluation timed again on the same operands, on a second allocation and on a third with other values.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gt51 && rm -rf $work && mkdir -p $work/out && tar xJf "$here/bins.tar.xz" -C $work
bins=$work/bins
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $work/out/device.txt 2>&1
n=$(nvidia-smi -L | wc -l)
for i in $(seq 0 $((n-1))); do
  ( start=$(date +%s)
    timeout 440 $bins/gemmtune_llm_bench --device $i --placement-probe --time-budget 400 --output $work/out/llm-gpu$i.md --details $work/out/llm-gpu$i-details.md > /dev/null 2> $work/out/llm-gpu$i-stderr.txt
    echo "gpu $i: llm bench rc $? in $(( $(date +%s) - start )) s" >> $work/out/device.txt ) &
done
wait
tar czf $OUT/out.tar.gz -C $work out
cat $work/out/device.txt
for i in $(seq 0 $((n-1))); do echo "== gpu $i"; grep -E "^\| (geomean|winner not|no problem)" $work/out/llm-gpu$i.md | cut -c1-300; done
