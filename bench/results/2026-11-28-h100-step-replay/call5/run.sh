mkdir -p /tmp/gt31 && tar xJf build-cudacheck/carry31/bins.tar.xz -C /tmp/gt31
nvidia-smi --query-gpu=name --format=csv,noheader
/tmp/gt31/bins/gemmtune_step_bench --layers 1B-bf16 --rounds 5 --warmup-s 2 --output $OUT/step.md > /dev/null 2> $OUT/step-stderr.txt; echo "step rc=$?"
