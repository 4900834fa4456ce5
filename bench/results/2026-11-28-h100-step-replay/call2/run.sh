mkdir -p /tmp/gt28 && tar xJf build-cudacheck/carry28/bins.tar.xz -C /tmp/gt28
nvidia-smi --query-gpu=name,driver_version,temperature.gpu,power.draw,power.limit --format=csv > $OUT/gpu.txt
/tmp/gt28/bins/gemmtune_step_bench --layers 1B-bf16,8B-bf16,8B-fp16,70B-bf16 --rounds 30 --output $OUT/step.md > $OUT/step-stdout.txt 2> $OUT/step-stderr.txt; echo "rc=$?"
tail -5 $OUT/step-stderr.txt
