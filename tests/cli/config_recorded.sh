#!/usr/bin/env bash
# config_recorded.sh GEMMTUNE: the effective configuration goes into the SQLite runs table of
# `gemmtune tune` and of `gemmtune mamf`, and into mamf's report, with each key's origin.
set -euo pipefail
gemmtune=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
options_of() {
  python3 - "$1" <<'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute("SELECT options FROM runs").fetchall()
assert len(rows) == 1, rows
print(rows[0][0])
PY
}

"$gemmtune" tune --problem GemmTunableOp_float_NN,nn_32_32_32_ld_32_32_32 -o "$work/tune.db" \
  --backend cpu --max-tuning-duration-ms 2 --seed 7 >"$work/tune.log" 2>&1 || { cat "$work/tune.log"; fail "tune"; }
options_of "$work/tune.db" >"$work/tune_options.txt"
grep -q '^# effective configuration$' "$work/tune_options.txt" || fail "tune: no configuration in runs.options"
grep -qE '^max_tuning_iterations = 100 +# configs/default\.toml$' "$work/tune_options.txt" || fail "tune: default key"
grep -qE '^seed = 7 +# command line$' "$work/tune_options.txt" || fail "tune: command-line key"
grep -q '^\[device\]$' "$work/tune_options.txt" || fail "tune: [device]"
grep -q '^\[mamf\]$' "$work/tune_options.txt" && fail "tune: records [mamf]"
# The command line as typed, so that the run can be repeated from the database.
command_line=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT command_line FROM runs").fetchone()[0])' "$work/tune.db")
case "$command_line" in
  *" tune --problem GemmTunableOp_float_NN,nn_32_32_32_ld_32_32_32 -o "*"--seed 7") ;;
  *) fail "tune: runs.command_line is '$command_line'" ;;
esac

"$gemmtune" mamf --backend cpu --dtype float32 --m 64 --n 48 --k 40 --num_iterations 3 \
  --num_warmup_iterations 1 --max-warmup-seconds 0 --device-config h100_sxm --db "$work/mamf.db" \
  --output_file "$work/mamf.txt" >"$work/mamf.log" 2>&1 || { cat "$work/mamf.log"; fail "mamf"; }
grep -q '^\*\* Configuration:$' "$work/mamf.txt" || fail "mamf: no configuration in the report"
grep -qE '^num_iterations = 3 +# command line$' "$work/mamf.txt" || fail "mamf report: command-line key"
grep -qE '^float32 = 66\.9 +# configs/devices/h100_sxm\.toml$' "$work/mamf.txt" || fail "mamf report: device key"
grep -q 'Efficiency against the 66\.9 TFLOPS dense float32 peak (NVIDIA H100 SXM5 spec)' "$work/mamf.txt" \
  || fail "mamf: efficiency from the device file"
options_of "$work/mamf.db" >"$work/mamf_options.txt"
grep -qE '^float32 = 66\.9 +# configs/devices/h100_sxm\.toml$' "$work/mamf_options.txt" \
  || fail "mamf: no configuration in runs.options"
echo ok
