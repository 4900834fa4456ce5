#!/usr/bin/env bash
# check_store.sh GEMMTUNE DB ARGS...: a sweep with --db stores one result per shape in SQLite.
set -eu
gt=$1; db=$2; shift 2
rm -f "$db"
"$gt" mamf "$@" --db "$db" --no-verbose
show=$("$gt" db show "$db")
echo "$show"
grep -q "3 entries" <<<"$show" || { echo "FAIL: expected 3 entries"; exit 1; }
grep -q "tn_48_96_40_ld_40_40_48" <<<"$show" || { echo "FAIL: shape 96x48x40 missing"; exit 1; }
echo ok
