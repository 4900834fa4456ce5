mkdir -p /tmp/gt30 && tar xJf build-cudacheck/carry30/bins.tar.xz -C /tmp/gt30
nvidia-smi --query-gpu=name,driver_version,temperature.gpu,power.draw,power.limit --format=csv > $OUT/gpu.txt
/tmp/gt30/bins/gemmtune_llm_bench --time-budget 400 --output $OUT/llm.md --details $OUT/llm-details.md > /dev/null 2> $OUT/llm-stderr.txt; echo "llm rc=$?"
/tmp/gt30/bins/gemmtune_step_bench --layers 1B-bf16 --rounds 10 --output $OUT/step.md > /dev/null 2> $OUT/step-stderr.txt; echo "step rc=$?"
cd $OUT && tar cJf out.tar.xz *.md *.txt && rm -f *.md *-stderr.txt
