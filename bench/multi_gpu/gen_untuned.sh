#!/usr/bin/env bash
# gen_untuned.sh [COUNT] [SCALE]: prints COUNT (default 200) distinct untuned-file lines of the
# linear layers of five open LLMs — QKV, attention output, gate+up, down and LM head projections
# at 1 to 8192 tokens — in the form PyTorch TunableOp records them for nn.Linear in BF16:
#   GemmTunableOp_BFloat16_TN,tn_<out>_<tokens>_<in>_ld_<in>_<in>_<out>
# SCALE (default 1) divides every model dimension (at least 1) and replaces the token counts by
# 1, 2, 4, ..., 256, so that the CPU backend can tune the same mix of 200 distinct shapes in
# reasonable time; the GPU benchmark uses 1.
set -euo pipefail
count=${1:-200}
scale=${2:-1}
# model: hidden  qkv_out  attn_in  intermediate  vocab   (published configs)
models=(
  "llama3-8b    4096 6144  4096 14336 128256"
  "llama3-70b   8192 10240 8192 28672 128256"
  "qwen2.5-7b   3584 4608  3584 18944 152064"
  "qwen2.5-32b  5120 7168  5120 27648 152064"
  "mistral-nemo 5120 6144  4096 14336 131072"
)
tokens=(1 8 32 128 512 1024 2048 4096 8192)
[ "$scale" -gt 1 ] && tokens=(1 2 4 8 16 32 64 128 256)
s() { local v=$(( ($1 + scale / 2) / scale )); echo $(( v < 1 ? 1 : v )); }
line() {  # out tokens in
  local o t=$2 i; o=$(s "$1"); i=$(s "$3")
  echo "GemmTunableOp_BFloat16_TN,tn_${o}_${t}_${i}_ld_${i}_${i}_${o}"
}
all=$(
  for t in "${tokens[@]}"; do
    for m in "${models[@]}"; do
      read -r _ hidden qkv attn inter vocab <<<"$m"
      line "$qkv" "$t" "$hidden"             # QKV projection
      line "$hidden" "$t" "$attn"            # attention output
      line $((2 * inter)) "$t" "$hidden"     # gate and up, fused
      line "$hidden" "$t" "$inter"           # down
      line "$vocab" "$t" "$hidden"           # LM head
    done
  done
)
# The first COUNT distinct lines (awk reads everything: no early exit, no SIGPIPE upstream).
awk -v n="$count" '!seen[$0]++ && c < n { print; c++ }' <<<"$all"
