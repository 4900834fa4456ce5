mkdir -p /tmp/gt27 && tar xJf build-cudacheck/carry27/bins.tar.xz -C /tmp/gt27
B=/tmp/gt27/bins/gemmtune_llm_bench
P=65,70,72,76,78,80,82,88,97,99,100,101
nvidia-smi --query-gpu=name,driver_version,temperature.gpu,power.draw,power.limit --format=csv > $OUT/gpu.txt
for L in 0 10 30; do
  $B --only $P --lead-in-ms $L --output $OUT/lead$L.md --details $OUT/lead$L-details.md > $OUT/lead$L-stdout.txt 2>&1; echo "lead $L rc=$?"
done
