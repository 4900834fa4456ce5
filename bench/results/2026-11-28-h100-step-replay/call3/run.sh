mkdir -p /tmp/gt29 && tar xJf build-cudacheck/carry29/bins.tar.xz -C /tmp/gt29
nvidia-smi --query-gpu=name,driver_version,temperature.gpu,power.draw,power.limit --format=csv > $OUT/gpu.txt
/tmp/gt29/bins/gemmtune_step_bench --layers 8B-bf16,70B-bf16,8B-fp16,1B-bf16 --rounds 30 --output $OUT/step.md > $OUT/step-stdout.txt 2> $OUT/step-stderr.txt; echo "rc=$?"
tail -3 $OUT/step-stderr.txt
