#!/usr/bin/env bash
# pytorch_roundtrip.sh GEMMTUNE WORKDIR: the round trip a PyTorch user makes, on this machine's
# GPU. PyTorch records the GEMMs of a small model and tunes them itself (for its validators);
# gemmtune tunes the recorded file; `db convert --for-pytorch` writes what PyTorch will load;
# PyTorch loads it, runs the same GEMMs with tuning off and compares them with its own calls
# (pytorch_roundtrip.py). Then the same with every provider, whose own kernels PyTorch does not
# know: the conversion must leave them out and PyTorch still load the rest.
# Exit 77 (ctest: skipped) where PyTorch or a GPU is missing; GEMMTUNE_REQUIRE_GPU=1 turns a
# missing GPU into a failure.
set -u
gemmtune=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
python=${GEMMTUNE_PYTHON:-python3}

. "$here/skip_without_gpu.sh"
rm -rf "$work" && mkdir -p "$work" || exit 1

PYTORCH_TUNABLEOP_UNTUNED_FILENAME="$work/pytorch_untuned.csv" \
  "$python" "$here/pytorch_roundtrip.py" record "$work"
status=$?
[ $status -eq 0 ] || exit $status
# PyTorch puts the device's ordinal before .csv where the name has no %d.
untuned=$(ls "$work"/pytorch_untuned*.csv 2>/dev/null | head -1)
reference=$(ls "$work"/pytorch_results*.csv 2>/dev/null | head -1)
for f in untuned reference; do
  [ -s "${!f}" ] || { echo "FAIL: PyTorch wrote no $f file in $work" >&2; ls -l "$work" >&2; exit 1; }
done
echo "PyTorch recorded $(grep -c . "$untuned") GEMMs ($(grep -c '^ScaledGemm' "$untuned") ScaledGemm); its validators: $(grep '^Validator,' "$reference" | tr '\n' ' ')"

roundtrip() {  # NAME [tune options...]
  local name=$1
  shift
  "$gemmtune" tune "$untuned" -o "$work/$name.csv" "$@" > "$work/$name-tune.log" 2>&1 ||
    { echo "FAIL: gemmtune tune ($name)" >&2; cat "$work/$name-tune.log" >&2; return 1; }
  grep -E '^Summary:' "$work/$name-tune.log"
  "$gemmtune" db convert "$work/$name.csv" "$work/$name-for-pytorch.csv" --for-pytorch "$reference" \
    > "$work/$name-convert.log" 2>&1 ||
    { echo "FAIL: gemmtune db convert ($name)" >&2; cat "$work/$name-convert.log" >&2; return 1; }
  cat "$work/$name-convert.log"
  "$python" "$here/pytorch_roundtrip.py" check "$work/$name-for-pytorch.csv" || return 1
  # What the conversion protects against: gemmtune's winners as they are, under PyTorch's
  # validators. Reported, not required: it depends on what this PyTorch can run.
  { grep '^Validator,' "$reference"; grep -v '^Validator,' "$work/$name.csv"; } > "$work/$name-unfiltered.csv"
  if "$python" "$here/pytorch_roundtrip.py" check "$work/$name-unfiltered.csv" > "$work/$name-unfiltered.log" 2>&1; then
    echo "unfiltered ($name): PyTorch ran every winner as gemmtune wrote it"
  else
    echo "unfiltered ($name): PyTorch failed on the winners as gemmtune wrote it: $(grep -E 'Error|FAIL' "$work/$name-unfiltered.log" | tail -2 | tr '\n' ' ')"
  fi
}

roundtrip pytorch-providers --providers cublas,cublaslt || exit 1
roundtrip all-providers || exit 1
echo "PASS"
