#!/usr/bin/env bash
# expect.sh RC REGEX [--absent REGEX2] -- COMMAND...: runs COMMAND, checks its exit code is RC and
# its combined output matches the extended regex REGEX (empty: no check) and not REGEX2. Prints the
# output on failure.
set -u
want_rc=$1; regex=$2; shift 2
absent=""
if [ "$1" = "--absent" ]; then absent=$2; shift 2; fi
[ "$1" = "--" ] && shift
out=$("$@" 2>&1); rc=$?
fail=0
if [ "$rc" != "$want_rc" ]; then echo "exit code $rc, expected $want_rc"; fail=1; fi
if [ -n "$regex" ] && ! grep -Eq -- "$regex" <<<"$out"; then echo "output does not match: $regex"; fail=1; fi
if [ -n "$absent" ] && grep -Eq -- "$absent" <<<"$out"; then echo "output matches: $absent"; fail=1; fi
if [ $fail = 1 ]; then printf -- '--- command: %s\n--- output:\n%s\n' "$*" "$out"; exit 1; fi
exit 0
