#!/usr/bin/env bash
# Device-side (cd508a7): the full LLM benchmark on every GPU of the machine at once, one process per GPU, to see which top-8 misses repeat from GPU to GPU.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gt50 && rm -rf $work && mkdir -p $work && tar xJf "$here/bins.tar.xz" -C $work
bins=$work/bins
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,temperature.gpu,power.draw,power.limit --format=csv > $OUT/device.txt 2>&1
n=$(nvidia-smi -L | wc -l)
for i in $(seq 0 $((n-1))); do
  ( start=$(date +%s)
    timeout 330 $bins/gemmtune_llm_bench --device $i --time-budget 280 --output $OUT/llm-gpu$i.md --details $OUT/llm-gpu$i-details.md > /dev/null 2> $OUT/llm-gpu$i-stderr.txt
    echo "gpu $i: llm bench rc $? in $(( $(date +%s) - start )) s" >> $OUT/device.txt ) &
done
wait
cat $OUT/device.txt
for i in $(seq 0 $((n-1))); do echo "== gpu $i"; grep -E "^\| (geomean|winner not|no problem)" $OUT/llm-gpu$i.md | cut -c1-600; done
