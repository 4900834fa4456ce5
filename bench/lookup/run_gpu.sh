#!/usr/bin/env bash
# run_gpu.sh CARRY OUT: on a GPU host, with binaries built elsewhere (see bench/results/*-lookup.md):
#   1. record -> gemmtune tune -> lookup on CUDA (examples/record_tune_lookup), and again with
#      Context::tune_file (--in-process);
#   2. app_lookup on CUDA with two of its GEMMs tuned;
#   3. gemmtune_lookup_bench: lookup in a 10,000-entry table, ctx.gemm vs cuBLASLt direct.
# CARRY holds bin/ (gemmtune, gemmtune_lookup_bench, record_tune_lookup, app_lookup) and lib/
# (libbenchmark). Logs and the benchmark's JSON go to OUT.
set -uo pipefail
carry=$(realpath "$1")
out=$2
export LD_LIBRARY_PATH=$carry/lib:${LD_LIBRARY_PATH:-}
export GEMMTUNE_BACKEND=cuda
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$out/gpu.txt"
nproc; lscpu | grep -m1 "Model name"
work=$(mktemp -d)
cd "$work"
echo "== record_tune_lookup (gemmtune tune)"
"$carry/bin/record_tune_lookup" --cli "$carry/bin/gemmtune" 2>&1 | tee "$out/record_tune_lookup.txt"
cp tunableop_untuned0.csv "$out/untuned0.csv"; cp tunableop_results0.csv "$out/results0.csv"
echo "== record_tune_lookup --in-process (Context::tune_file)"
mkdir in_process && (cd in_process && "$carry/bin/record_tune_lookup" --in-process 2>&1 | tee "$out/record_tune_lookup_in_process.txt")
echo "== app_lookup"
"$carry/bin/gemmtune" tune --backend cuda -o app_results.csv \
  --problem "GemmTunableOp_float_NN,nn_256_256_256_ld_256_256_256" \
  --problem "GemmTunableOp_BFloat16_TN,tn_512_16_256_ld_256_256_512" > /dev/null
"$carry/bin/app_lookup" app_results.csv 2>&1 | tee "$out/app_lookup.txt"
echo "== gemmtune_lookup_bench"
"$carry/bin/gemmtune_lookup_bench" --benchmark_min_time=0.2 --benchmark_out="$out/bench.json" \
  --benchmark_out_format=json 2>&1 | tee "$out/bench.txt"
