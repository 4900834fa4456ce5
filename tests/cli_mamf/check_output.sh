#!/usr/bin/env bash
# check_output.sh GEMMTUNE DIR ARGS...: runs a small sweep with --output_file and --plot and checks
# the file is in mamf-finder.py's layout and the plot is well-formed SVG.
set -eu
gt=$1; dir=$2; shift 2
rm -rf "$dir"
"$gt" mamf "$@" --output_file "$dir/sub/mamf.txt" --plot "$dir/plot.svg" --notes "a note" >"$dir.stdout" 2>&1
out=$dir/sub/mamf.txt
fail() { echo "FAIL: $*"; echo "--- $out:"; cat "$out"; exit 1; }
grep -q '^Benchmark started on [0-9-]* [0-9:]*$' "$out" || fail "start time"
grep -q '^\*\* Command line:$' "$out" || fail "command line section"
grep -qE '^[^ ]*gemmtune mamf .*--m_range 0 97 32' "$out" || fail "the command line itself"
grep -q '^\*\* Dtype: float32$' "$out" || fail "dtype"
grep -q '^\*\* Platform/Device info:$' "$out" || fail "platform"
grep -q '^- cpu device 0: ' "$out" || fail "device"
grep -q '^\*\* Critical software versions:$' "$out" || fail "versions"
grep -q '^- gemmtune=' "$out" || fail "gemmtune version"
grep -q '^a note$' "$out" || fail "notes"
grep -q '^Warming up the accelerator until timings settle \.\.\. ' "$out" || fail "warm-up line"
n=$(grep -cE '^ {5}[1-3] \| +[0-9.]+\(mean\) +[0-9.]+\(median\) +[0-9.]+\(max\) @ (32|64|96)x48x40 +\| best: +[0-9.]+\(mean\) +[0-9.]+\(median\) +[0-9.]+\(max\) TFLOPS$' "$out")
[ "$n" = 3 ] || fail "expected 3 shape lines, found $n"
grep -q '^Tried 3 shapes => the best outcomes were:$' "$out" || fail "best outcomes"
grep -qE '^mean:   [0-9.]+ TFLOPS @ [0-9]+x48x40 \(MxNxK\)$' "$out" || fail "best mean"
grep -qE '^median: [0-9.]+ TFLOPS @ ' "$out" || fail "best median"
grep -qE '^max:    [0-9.]+ TFLOPS @ ' "$out" || fail "best max"
grep -q '^Across 3 shapes in range: m=\[0, 97, 32\] | n=\[48\] | k=\[40\] in this run:$' "$out" || fail "range info"
grep -qE '^arithmetic mean: [0-9.]+ TFLOPS$' "$out" || fail "arithmetic mean"
grep -qE '^geometric mean:  [0-9.]+ TFLOPS$' "$out" || fail "geometric mean"
grep -qE '^Elapsed time: [0-9]+:[0-9]{2}:[0-9]{2}$' "$out" || fail "elapsed"
# stdout carries the same report.
cmp -s <(grep -v '^Benchmark started' "$out") <(grep -v '^Benchmark started' "$dir.stdout") || fail "stdout differs from the file"
python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.documentElement.tagName == "svg"; assert d.getElementsByTagName("polyline")' "$dir/plot.svg" \
  || fail "plot is not well-formed SVG with a line"
echo "ok"
