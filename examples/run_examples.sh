#!/usr/bin/env bash
# run_examples.sh BUILD_DIR WORK_DIR [CMAKE]
#
# Installs gemmtune from BUILD_DIR into WORK_DIR/prefix (cmake --install), configures and builds
# every example against it as an application would (find_package(gemmtune CONFIG REQUIRED)),
# compiles app_lookup's C++ and C programs once more with pkg-config's flags alone (gemmtune.pc),
# and runs them all in WORK_DIR/run on the backend GEMMTUNE_BACKEND names (the test sets cpu).
# Fails on the first error, printing its log.
set -euo pipefail
build=$(realpath "$1")
work=$2
cmake=${3:-cmake}
src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work/run"
work=$(realpath "$work")
prefix=$work/prefix

step() { echo "== $*"; }
run_logged() {  # run_logged LOG COMMAND...
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    echo "FAILED: $*"
    exit 1
  fi
}

step "install into $prefix"
run_logged "$work/install.log" "$cmake" --install "$build" --prefix "$prefix"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
for example in app_lookup custom_provider record_tune_lookup; do
  step "build $example against the installed package"
  run_logged "$work/configure-$example.log" "$cmake" -S "$src/$example" -B "$work/build-$example" \
    "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
  run_logged "$work/build-$example.log" "$cmake" --build "$work/build-$example" -j 2
done

pc_dir=$(dirname "$(find "$prefix" -name gemmtune.pc | head -1)")
if command -v pkg-config >/dev/null && PKG_CONFIG_PATH=$pc_dir pkg-config --exists gemmtune; then
  pc() { PKG_CONFIG_PATH=$pc_dir pkg-config "$@" gemmtune; }
  # The public C++ headers need C++20, which a compiler's default (GCC 12: C++17) is not: the
  # .pc file's Cflags carry -std=c++20, so that its flags alone build a C++ caller.
  step "build app_lookup (C++) with pkg-config's flags alone"
  case " $(pc --cflags) " in
    *" -std=c++20 "*) ;;
    *) echo "FAILED: gemmtune.pc's Cflags lack -std=c++20: $(pc --cflags)"; exit 1 ;;
  esac
  run_logged "$work/pkg-config-cxx.log" c++ -o "$work/app_lookup_pkgconfig" \
    "$src/app_lookup/app_lookup.cpp" -I"$src/common" $(pc --cflags --libs)
  # A C caller takes the include directories only (--cflags-only-I): -std=c++20 is not C.
  step "build app_lookup_c with pkg-config (--cflags-only-I)"
  run_logged "$work/pkg-config.log" cc -o "$work/app_lookup_c_pkgconfig" \
    "$src/app_lookup/app_lookup_c.c" $(pc --cflags-only-I --libs)
else
  echo "== pkg-config or the .pc files gemmtune.pc requires (fmt, sqlite3) missing: skipped"
fi

cd "$work/run"
step "record_tune_lookup (record -> gemmtune tune -> lookup)"
# No --cli: the example runs the package's GEMMTUNE_EXECUTABLE, which must be the installed one
# (it once pointed into fmt's prefix, /usr/bin/gemmtune).
"$work/build-record_tune_lookup/record_tune_lookup"
step "app_lookup: two of its five GEMMs tuned with gemmtune tune, the others run Default"
"$prefix/bin/gemmtune" tune --backend cpu --max-tuning-duration-ms 5 -o app_results.csv \
  --problem "GemmTunableOp_float_NN,nn_256_256_256_ld_256_256_256" \
  --problem "GemmTunableOp_double_NN,nn_128_128_128_ld_128_128_128" >/dev/null
"$work/build-app_lookup/app_lookup" app_results.csv
step "record_tune_lookup --in-process (Context::tune_file) in a fresh directory"
mkdir -p in_process && (cd in_process && "$work/build-record_tune_lookup/record_tune_lookup" --in-process)
step "custom_provider"
"$work/build-custom_provider/custom_provider"
step "app_lookup_c"
"$work/build-app_lookup/app_lookup_c"
if [ -x "$work/app_lookup_c_pkgconfig" ]; then "$work/app_lookup_c_pkgconfig"; fi
step "app_lookup built with pkg-config"
if [ -x "$work/app_lookup_pkgconfig" ]; then "$work/app_lookup_pkgconfig" app_results.csv; fi
echo "all examples passed"
