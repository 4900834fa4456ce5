#!/usr/bin/env bash
# multi.sh CASE GEMMTUNE: one CLI test of tuning across several devices on the CPU backend
# (--workers N plays N devices), each case in its own temporary directory. Exit 77: skipped.
set -uo pipefail
case_name=$1
gemmtune=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export GEMMTUNE_BACKEND=cpu
unset GEMMTUNE_TEST_CRASH_ON GEMMTUNE_TEST_HANG_ON GEMMTUNE_TEST_DEVICE_LOST_ON GEMMTUNE_SHARD \
      GEMMTUNE_TEST_CRASH_AFTER_SAVE_ON GEMMTUNE_TEST_SAVE_FAILS_ON_DEVICE \
      GEMMTUNE_TEST_HANG_AT_START_ON_DEVICE
# Under a launcher (CI inside srun, say) the runs here must not take a shard of their own.
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE SLURM_PROCID SLURM_NTASKS \
      SLURM_STEP_NUM_TASKS GEMMTUNE_WORKERS GEMMTUNE_GPUS GEMMTUNE_DEVICES
fast=(--max-tuning-duration-ms 1 --rotating-buffer-mb 0)

fail() { echo "FAIL ($case_name): $*"; [ -f out.log ] && { echo "--- output:"; cat out.log; }; exit 1; }
# problem M: a small float GEMM whose size says which it is.
problem() { echo "GemmTunableOp_float_NN,nn_$1_32_32_ld_$1_32_$1"; }
params() { echo "nn_$1_32_32_ld_$1_32_$1"; }
untuned() { local file=$1; shift; : >"$file"; for m in "$@"; do problem "$m" >>"$file"; done; }
entries() { if [ -f "$1" ]; then grep -vc '^Validator,' "$1" || true; else echo 0; fi; }
dups() { grep -v '^Validator,' "$1" | cut -d, -f1,2 | sort | uniq -d | wc -l; }
# run RC ARGS...: runs gemmtune, output in out.log, checks the exit status.
run() {
  local want=$1; shift
  "$gemmtune" "$@" >out.log 2>&1
  local rc=$?
  [ "$rc" = "$want" ] || fail "exit status $rc, expected $want: gemmtune $*"
}
expect() { grep -Eq -- "$1" out.log || fail "output does not match: $1"; }
# sum_tuned LABEL LOG...: sets $tuned to the problems the runs that wrote LOG... tuned between them.
sum_tuned() {
  local label=$1 log n; shift
  tuned=0
  for log in "$@"; do
    n=$(sed -nE 's/.*problem\(s\): ([0-9]+) tuned, .*/\1/p' "$log")
    [ -n "$n" ] || fail "$label: no summary in $log"
    tuned=$((tuned + n))
  done
}
# children PID: the processes PID started (from /proc, so that no procps is needed).
children() {
  local d ppid
  for d in /proc/[0-9]*; do
    read -r _ _ _ ppid _ <"$d/stat" 2>/dev/null && [ "$ppid" = "$1" ] && echo "${d#/proc/}"
  done
  return 0
}
# Six problems slow enough (default rotation) to act on a run while it is under way.
slow_untuned() {
  : >u.csv
  for m in 640 704 768 832 896 960; do
    echo "GemmTunableOp_BFloat16_TN,tn_${m}_64_512_ld_512_512_${m}" >>u.csv
  done
}
# one_beside_multi ONE MULTI: a one-device run into ONE and a 2-worker run into MULTI (whose
# per-device files ONE is one of) on u.csv at once; neither appends a problem twice to ONE, and the
# gathered file holds every problem once.
one_beside_multi() {
  local one=$1 multi=$2 gathered
  gathered=$(sed -E 's/[0-9]+\.csv$/_full0.csv/' <<<"$multi")
  "$gemmtune" tune u.csv -o "$work/$one" "${slow[@]}" >run1.log 2>&1 &
  local p1=$!
  "$gemmtune" tune u.csv --workers 2 -o "$work/$multi" "${slow[@]}" >run2.log 2>&1 &
  local p2=$!
  local r1=0 r2=0
  wait "$p1" || r1=$?
  wait "$p2" || r2=$?
  cat run1.log run2.log >out.log
  [ "$r1$r2" = 00 ] || fail "$one beside $multi: exit statuses $r1 and $r2"
  [ "$(dups "$one")" = 0 ] || fail "$one (the one-device run's output) holds $(dups "$one") problem(s) twice"
  [ "$(entries "$gathered")" = 24 ] && [ "$(dups "$gathered")" = 0 ] \
    || fail "$gathered: $(entries "$gathered") entries, $(dups "$gathered") twice"
}
# start_slow PREFIX: starts a 2-worker run of u.csv in the background (its pid in $coordinator)
# and returns once its per-device files hold 2 results.
start_slow() {
  "$gemmtune" tune u.csv --workers 2 -o "$work/${1}0.csv" --max-tuning-duration-ms 5 >out.log 2>&1 &
  coordinator=$!
  for _ in $(seq 1 600); do
    [ $(( $(entries ${1}0.csv) + $(entries ${1}1.csv) )) -ge 2 ] && return 0
    kill -0 "$coordinator" 2>/dev/null || break
    sleep 0.05
  done
  wait "$coordinator"
  fail "the run ended before it could be acted on"
}

case $case_name in
workers)  # dedupe across files, per-device files, gathered file and its copies, both devices used
  untuned u1.csv 8 16 24 32 40
  untuned u2.csv 24 40 48 56
  run 0 tune "$work/u?.csv" --workers 2 -o "$work/res0.csv" "${fast[@]}"
  expect "7 problem\(s\): 7 tuned, 0 already tuned \(skipped\), 0 not tuned"
  expect "Devices:"
  for f in res0.csv res1.csv res_full0.csv res_full1.csv; do [ -f $f ] || fail "$f missing"; done
  [ "$(entries res_full0.csv)" = 7 ] || fail "res_full0.csv has $(entries res_full0.csv) entries"
  [ "$(dups res_full0.csv)" = 0 ] || fail "duplicates in res_full0.csv"
  cmp -s res_full0.csv res_full1.csv || fail "res_full1.csv differs from res_full0.csv"
  [ $(( $(entries res0.csv) + $(entries res1.csv) )) = 7 ] || fail "per-device files do not add up to 7"
  [ "$(entries res0.csv)" -ge 1 ] && [ "$(entries res1.csv)" -ge 1 ] || fail "a device took no problem"
  grep -q '^Validator,GEMMTUNE_BACKEND,cpu' res_full0.csv || fail "no validators in res_full0.csv"
  ;;
resume)  # rerun skips what any output holds: per-device files and the gathered file
  untuned u.csv 8 16 24 32 40 48
  run 0 tune u.csv --workers 2 -o "$work/r0.csv" "${fast[@]}"
  run 0 tune u.csv --workers 2 -o "$work/r0.csv" "${fast[@]}"
  expect "0 tuned, 6 already tuned \(skipped\)"
  rm r1.csv
  run 0 tune u.csv --workers 2 -o "$work/r0.csv" "${fast[@]}"
  expect "0 tuned, 6 already tuned \(skipped\)"
  problem 56 >>u.csv
  run 0 tune u.csv --workers 2 -o "$work/r0.csv" "${fast[@]}"
  expect "1 tuned, 6 already tuned \(skipped\)"
  [ "$(entries r_full0.csv)" = 7 ] && [ "$(dups r_full0.csv)" = 0 ] || fail "r_full0.csv is not the 7 problems once each"
  ;;
from_one_device)  # -o of an earlier one-device run: its entries are resumed from and gathered
  untuned old.csv 8 16
  run 0 tune old.csv -o "$work/res.csv" "${fast[@]}"
  untuned new.csv 8 24
  run 0 tune new.csv --workers 2 -o "$work/res.csv" "${fast[@]}"
  expect "1 tuned, 1 already tuned \(skipped\)"
  [ "$(entries res_full0.csv)" = 3 ] || fail "res_full0.csv has $(entries res_full0.csv) entries, not 3"
  grep -q "$(params 16)" res_full0.csv || fail "res.csv's own entry was not gathered"
  [ "$(entries res.csv)" = 2 ] || fail "res.csv was changed"
  # -v: each worker prints its candidates' dispositions, naming its device.
  untuned verbose.csv 40
  run 0 tune verbose.csv --workers 2 -o "$work/res.csv" "${fast[@]}" -v
  expect "^\[cpu device [01]\] $(problem 40)"
  expect "^\[cpu device [01]\]     winner "
  expect "^\[cpu device [01]\] [0-9.]+ s: enumerate "
  ;;
stale_gathered)  # a gathered file left as it was (a line it cannot read) makes the run partial
  untuned u.csv 8 16 24
  run 0 tune u.csv --workers 2 -o "$work/r0.csv" "${fast[@]}"
  echo "garbage line" >>r_full0.csv
  problem 32 >>u.csv
  run 5 tune u.csv --workers 2 -o "$work/r0.csv" "${fast[@]}"
  expect "r_full0.csv: left as it is"
  expect "r_full0.csv left without this run's results"
  grep -q "garbage line" r_full0.csv || fail "r_full0.csv lost its unreadable line"
  grep -q "$(params 32)" r_full1.csv || fail "the copy lacks the new winner"
  ;;
crash)  # a problem that crashes every worker is given up after two; nothing else is lost
  untuned u.csv 8 16 24 32 40 48 56
  GEMMTUNE_TEST_CRASH_ON=$(params 32) run 5 tune u.csv --workers 2 -o "$work/c0.csv" "${fast[@]}"
  expect "6 tuned, 0 already tuned \(skipped\), 1 not tuned"
  expect "not tuned: $(problem 32): killed 2 workers, not retried: .*signal 6.*signal 6"
  [ "$(entries c_full0.csv)" = 6 ] || fail "c_full0.csv has $(entries c_full0.csv) entries"
  grep -q "$(params 32)" c_full0.csv && fail "the crashing problem has a result"
  run 0 tune u.csv --workers 2 -o "$work/c0.csv" "${fast[@]}"
  expect "1 tuned, 6 already tuned"
  # Where every problem crashes nothing is written, and no file is named as the results.
  untuned v.csv 32
  GEMMTUNE_TEST_CRASH_ON=$(params 32) run 5 tune v.csv --workers 2 -o "$work/v0.csv" "${fast[@]}"
  expect "Results: none written"
  ;;
crash_after_save)  # a worker that dies after saving its winner: the problem counts, once
  untuned u.csv 8 16 24 32 40 48
  GEMMTUNE_TEST_CRASH_AFTER_SAVE_ON=$(params 24) run 0 tune u.csv --workers 2 -o "$work/s0.csv" "${fast[@]}"
  expect "$(problem 24): its winner was saved before the worker of device [01] ended \(signal 6.*counted as already tuned"
  expect "5 tuned, 1 already tuned \(skipped\), 0 not tuned"
  [ "$(entries s_full0.csv)" = 6 ] && [ "$(dups s_full0.csv)" = 0 ] || fail "s_full0.csv is not the 6 problems once each"
  ;;
kill)  # kill -9 a worker mid-run: its problem goes back to the queue, the run completes
  slow_untuned
  start_slow k
  victim=$(children "$coordinator" | head -1)
  [ -n "$victim" ] || fail "no worker process found"
  kill -9 "$victim"
  wait "$coordinator"; rc=$?
  [ "$rc" = 0 ] || fail "exit status $rc after a worker was killed"
  expect "signal 9"
  expect "restarting the worker of device"
  expect "6 tuned, 0 already tuned \(skipped\), 0 not tuned"
  [ "$(entries k_full0.csv)" = 6 ] && [ "$(dups k_full0.csv)" = 0 ] || fail "k_full0.csv is not the 6 problems once each"
  ;;
kill_coordinator)  # kill -9 the coordinator: workers finish what they hold and exit; rerun resumes
  slow_untuned
  start_slow q
  workers=$(children "$coordinator" | tr '\n' ' ')
  at_kill=$(( $(entries q0.csv) + $(entries q1.csv) ))
  kill -9 "$coordinator"
  wait "$coordinator" 2>/dev/null
  for _ in $(seq 1 300); do
    alive=0; for w in $workers; do kill -0 "$w" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  [ $alive = 0 ] || fail "workers still running 30 s after their coordinator died: $workers"
  after=$(( $(entries q0.csv) + $(entries q1.csv) ))
  echo "results when killed: $at_kill; after the workers finished: $after"
  [ "$after" -ge "$at_kill" ] || fail "results were lost"
  run 0 tune u.csv --workers 2 -o "$work/q0.csv" --max-tuning-duration-ms 5
  expect "$((6 - after)) tuned, $after already tuned \(skipped\), 0 not tuned"
  [ "$(entries q_full0.csv)" = 6 ] && [ "$(dups q_full0.csv)" = 0 ] || fail "q_full0.csv is not the 6 problems once each"
  ;;
interrupt)  # SIGINT: nothing more is handed out, problems in flight finish, the rest is reported
  slow_untuned
  start_slow i
  kill -INT "$coordinator"
  wait "$coordinator"; rc=$?
  [ "$rc" = 5 ] || fail "exit status $rc after SIGINT, expected 5"
  expect "interrupted; rerun to resume"
  done_first=$(entries i_full0.csv)
  [ "$done_first" -ge 2 ] && [ "$done_first" -lt 6 ] || fail "$done_first results after the interrupt"
  expect "not tuned: .*: interrupted"
  run 0 tune u.csv --workers 2 -o "$work/i0.csv" --max-tuning-duration-ms 5
  expect "$((6 - done_first)) tuned, $done_first already tuned"
  ;;
interrupt_starting)  # SIGINT while a worker is still starting (here: stuck) ends the run at once
  untuned u.csv 8 16 24
  GEMMTUNE_TEST_HANG_AT_START_ON_DEVICE=1 "$gemmtune" tune u.csv --workers 2 -o "$work/w0.csv" \
    "${fast[@]}" >out.log 2>&1 &
  coordinator=$!
  sleep 1
  kill -0 "$coordinator" 2>/dev/null || fail "the run ended before it could be interrupted"
  workers=$(children "$coordinator" | tr '\n' ' ')
  kill -INT "$coordinator"
  for _ in $(seq 1 100); do kill -0 "$coordinator" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$coordinator" 2>/dev/null; then
    kill -9 "$coordinator" $workers  # the stuck worker ignores SIGINT and SIGTERM
    fail "still running 10 s after SIGINT"
  fi
  wait "$coordinator"; rc=$?
  [ "$rc" = 5 ] || fail "exit status $rc after SIGINT, expected 5"
  expect "interrupted; rerun to resume"
  expect "0 tuned, 0 already tuned \(skipped\), 3 not tuned"
  expect "not tuned: $(problem 8): interrupted while the workers started"
  for w in $workers; do kill -0 "$w" 2>/dev/null && fail "worker $w left running"; done
  run 0 tune u.csv --workers 2 -o "$work/w0.csv" "${fast[@]}"
  expect "3 tuned, 0 already tuned"
  ;;
device_lost)  # a worker reports its device lost: the device is retired, its problem retried once
  untuned u.csv 8 16 24 32
  GEMMTUNE_TEST_DEVICE_LOST_ON=$(params 32) run 5 tune u.csv --workers 2 -o "$work/l0.csv" "${fast[@]}"
  expect "not tuned: $(problem 32): killed 2 workers, not retried: .*the device failed: injected device loss"
  [ "$(grep -c 'retired: the device failed' out.log)" = 2 ] || fail "both devices should be retired"
  tuned=$(sed -n 's/.*problem(s): \([0-9]*\) tuned.*/\1/p' out.log)
  not_tuned=$(sed -n 's/.* \([0-9]*\) not tuned;.*/\1/p' out.log)
  [ $((tuned + not_tuned)) = 4 ] || fail "$tuned tuned and $not_tuned not tuned of 4"
  [ "$(entries l_full0.csv)" = "$tuned" ] || fail "l_full0.csv does not hold the $tuned tuned"
  ;;
save_fails)  # a device whose output cannot be written is retired; its problem goes to the other
  untuned u.csv 8 16 24 32 40 48
  # Every problem is tuned, but the run lost a device: partial, naming it.
  GEMMTUNE_TEST_SAVE_FAILS_ON_DEVICE=1 run 5 tune u.csv --workers 2 -o "$work/f0.csv" "${fast[@]}"
  expect "retired: the device failed: could not save the winner to .*f1\.csv: injected save failure"
  expect "6 tuned, 0 already tuned \(skipped\), 0 not tuned"
  expect "^gemmtune: device 1 was lost \(the device failed: could not save the winner"
  [ "$(entries f_full0.csv)" = 6 ] && [ "$(dups f_full0.csv)" = 0 ] || fail "f_full0.csv is not the 6 problems once each"
  ;;
interrupt_twice)  # a second SIGINT stops the problems in flight too (here: a hung worker)
  untuned u.csv 8 16 24 32
  GEMMTUNE_TEST_HANG_ON=$(params 16) "$gemmtune" tune u.csv --workers 2 -o "$work/h0.csv" \
    "${fast[@]}" >out.log 2>&1 &
  coordinator=$!
  # the three others done: the hung one is in flight
  for _ in $(seq 1 200); do [ $(( $(entries h0.csv) + $(entries h1.csv) )) -ge 3 ] && break; sleep 0.05; done
  kill -INT "$coordinator"
  sleep 0.5
  kill -0 "$coordinator" 2>/dev/null || fail "the first SIGINT ended the run with a problem in flight"
  expect "interrupt again to stop those"
  kill -INT "$coordinator"
  for _ in $(seq 1 100); do kill -0 "$coordinator" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$coordinator" 2>/dev/null && { kill -9 "$coordinator"; fail "still running 10 s after a second SIGINT"; }
  wait "$coordinator"; rc=$?
  [ "$rc" = 5 ] || fail "exit status $rc after two SIGINTs, expected 5"
  expect "not tuned: $(problem 16): interrupted: .*stopped by a second interrupt"
  [ -z "$(children "$coordinator")" ] || fail "workers left behind"
  ;;
timeout)  # a worker stuck on a problem is killed at --problem-timeout-s; the others go on
  untuned u.csv 8 16 24 32
  GEMMTUNE_TEST_HANG_ON=$(params 16) run 5 tune u.csv --workers 2 -o "$work/t0.csv" \
    --problem-timeout-s 1 "${fast[@]}"
  expect "3 tuned, 0 already tuned \(skipped\), 1 not tuned"
  expect "not tuned: $(problem 16): killed 2 workers, not retried: took longer than --problem-timeout-s 1 s"
  [ "$(entries t_full0.csv)" = 3 ] || fail "t_full0.csv has $(entries t_full0.csv) entries"
  # A worker stuck starting is said to be so, not to have taken too long on a problem (its device
  # is lost: lost_at_start).
  GEMMTUNE_TEST_HANG_AT_START_ON_DEVICE=1 run 5 tune u.csv --workers 2 -o "$work/s0.csv" \
    --problem-timeout-s 1 "${fast[@]}"
  expect "the worker of device 1 did not start within --problem-timeout-s 1 s; it was killed"
  expect "retired: its worker could not start: no answer within --problem-timeout-s"
  ;;
lost_at_start)  # a device whose worker cannot start: the other tunes everything, the run is partial
  untuned u.csv 8 16 24 32
  GEMMTUNE_TEST_HANG_AT_START_ON_DEVICE=1 run 5 tune u.csv --workers 2 -o "$work/a0.csv" \
    --problem-timeout-s 1 "${fast[@]}"
  expect "4 tuned, 0 already tuned \(skipped\), 0 not tuned"
  expect "^gemmtune: device 1 was lost \(its worker could not start: no answer within --problem-timeout-s\); what was tuned is kept$"
  [ "$(entries a0.csv)" = 4 ] || fail "a0.csv (device 0) has $(entries a0.csv) entries, not 4"
  [ "$(entries a_full0.csv)" = 4 ] && [ "$(dups a_full0.csv)" = 0 ] || fail "a_full0.csv is not the 4 problems once each"
  cmp -s a_full0.csv a_full1.csv || fail "a_full1.csv (the lost device's copy) differs from a_full0.csv"
  # Once the device starts again, a rerun finds everything tuned: a plain success.
  run 0 tune u.csv --workers 2 -o "$work/a0.csv" "${fast[@]}"
  expect "0 tuned, 4 already tuned \(skipped\), 0 not tuned"
  ;;
sqlite)  # several worker processes append to one database: no row lost, and a rerun resumes
  untuned u.csv 8 16 24 32 40 48 56 64 72 80 88 96
  run 0 tune u.csv --workers 3 -o "$work/all.db" "${fast[@]}"
  expect "12 tuned, 0 already tuned"
  expect "Results: $work/all.db"
  [ -e all_full0.db ] || [ -e all0.db ] && fail "per-device databases were written"
  run 0 db show "$work/all.db"
  expect "12 entries"
  run 0 tune u.csv --workers 3 -o "$work/all.db" "${fast[@]}"
  expect "0 tuned, 12 already tuned"
  # The extension in any case is a database, as open_results_store reads it: one file, which a
  # one-device run then resumes from.
  run 0 tune u.csv --workers 2 -o "$work/upper.DB" "${fast[@]}"
  expect "Results: $work/upper.DB"
  [ -e upper_full0.DB ] || [ -e upper0.DB ] && fail "per-device databases were written for .DB"
  run 0 tune u.csv -o "$work/upper.DB" "${fast[@]}"
  expect "0 tuned, 12 already tuned"
  ;;
copy_unwritable)  # a gathered copy that cannot be written is refused before any tuning
  untuned u.csv 8 16
  ln -s /nonexistent/x.csv r_full1.csv
  run 3 tune u.csv --workers 2 -o "$work/r0.csv" "${fast[@]}"
  expect "r_full1.csv: cannot be written: the directory /nonexistent does not exist"
  [ -e r0.csv ] || [ -e r1.csv ] && fail "problems were tuned before the refusal"
  rm r_full1.csv
  mkdir r_full1.csv
  run 3 tune u.csv --workers 2 -o "$work/r0.csv" "${fast[@]}"
  expect "r_full1.csv: is a directory"
  [ -e r0.csv ] || [ -e r1.csv ] && fail "problems were tuned before the refusal"
  ;;
same_output)  # three runs started together on the same inputs and output share the problems out
  untuned u.csv $(seq 8 8 192)
  for ext in csv db; do
    for i in 1 2 3; do
      "$gemmtune" tune u.csv -o "$work/same.$ext" --max-tuning-duration-ms 5 \
        --rotating-buffer-mb 0 --settle-ms 0 >"run$i.log" 2>&1 &
      eval "pid$i=\$!"
    done
    wait "$pid1"; rc1=$?; wait "$pid2"; rc2=$?; wait "$pid3"; rc3=$?
    cat run1.log run2.log run3.log >out.log
    [ "$rc1$rc2$rc3" = 000 ] || fail "$ext: exit statuses $rc1, $rc2 and $rc3"
    sum_tuned "$ext" run1.log run2.log run3.log
    # Without claims the runs measure every problem they reach together: up to 72 tuned.
    [ "$tuned" = 24 ] || fail "$ext: the three runs tuned $tuned problems between them, not 24"
    [ -e ".same.$ext.claims" ] && fail "$ext: the claims file was left behind"
  done
  [ "$(entries same.csv)" = 24 ] && [ "$(dups same.csv)" = 0 ] || fail "same.csv: $(entries same.csv) entries, $(dups same.csv) twice"
  run 0 db show "$work/same.db"
  expect "24 entries"
  ;;
same_output_devices)  # multi-device runs share an output's problems with each other and with a one-device run
  untuned u.csv $(seq 8 8 192)
  slow=(--max-tuning-duration-ms 5 --rotating-buffer-mb 0 --settle-ms 0)
  # Two runs on separate devices of one machine, gathering into one CSV file.
  "$gemmtune" tune u.csv --devices 0,1 --backend cpu -o "$work/same.csv" "${slow[@]}" >run1.log 2>&1 &
  pid1=$!
  "$gemmtune" tune u.csv --devices 2,3 --backend cpu -o "$work/same.csv" "${slow[@]}" >run2.log 2>&1 &
  pid2=$!
  wait "$pid1"; rc1=$?; wait "$pid2"; rc2=$?
  cat run1.log run2.log >out.log
  [ "$rc1$rc2" = 00 ] || fail "csv: exit statuses $rc1 and $rc2"
  sum_tuned csv run1.log run2.log
  # Without claims each run measures every problem it reaches before the other saved it.
  [ "$tuned" = 24 ] || fail "csv: the two runs tuned $tuned problems between them, not 24"
  per_device=0
  for d in 0 1 2 3; do per_device=$((per_device + $(entries same$d.csv))); done
  [ "$per_device" = 24 ] || fail "csv: the per-device files hold $per_device entries, not 24"
  [ "$(entries same_full0.csv)" = 24 ] && [ "$(dups same_full0.csv)" = 0 ] \
    || fail "same_full0.csv: $(entries same_full0.csv) entries, $(dups same_full0.csv) twice"
  [ -e .same_full0.csv.claims ] && fail "csv: the claims file was left behind"
  # Two multi-device runs and a one-device run on one database.
  "$gemmtune" tune u.csv --workers 2 -o "$work/same.db" "${slow[@]}" >run1.log 2>&1 &
  pid1=$!
  "$gemmtune" tune u.csv --workers 2 -o "$work/same.db" "${slow[@]}" >run2.log 2>&1 &
  pid2=$!
  "$gemmtune" tune u.csv -o "$work/same.db" "${slow[@]}" >run3.log 2>&1 &
  pid3=$!
  wait "$pid1"; rc1=$?; wait "$pid2"; rc2=$?; wait "$pid3"; rc3=$?
  cat run1.log run2.log run3.log >out.log
  [ "$rc1$rc2$rc3" = 000 ] || fail "db: exit statuses $rc1, $rc2 and $rc3"
  sum_tuned db run1.log run2.log run3.log
  [ "$tuned" = 24 ] || fail "db: the three runs tuned $tuned problems between them, not 24"
  [ -e .same.db.claims ] && fail "db: the claims file was left behind"
  run 0 db show "$work/same.db"
  expect "24 entries"
  # A one-device run given the default kind of name (a stem ending in 0) writes device 0's file
  # of a multi-device run given the same -o: the two never append one problem to it together.
  one_beside_multi both0.csv both0.csv
  [ "$(entries both0.csv)" = 24 ] || fail "both0.csv (the one-device run's output): $(entries both0.csv) entries"
  # The same with the one-device run on device 1's file, which is not the multi-device run's -o.
  one_beside_multi next1.csv next0.csv
  ;;
devices)  # --devices names files by ordinal
  untuned u.csv 8 16 24
  run 0 tune u.csv --devices 0,2 --backend cpu -o "$work/d.csv" "${fast[@]}"
  for f in d0.csv d2.csv d_full0.csv d_full2.csv; do [ -f $f ] || fail "$f missing"; done
  [ -f d1.csv ] || [ -f d_full1.csv ] && fail "files for device 1, which was not used"
  [ "$(entries d_full2.csv)" = 3 ] || fail "d_full2.csv has $(entries d_full2.csv) entries"
  ;;
shard)  # --shard I/N: disjoint shares that db merge gathers into the whole
  untuned u.csv 8 16 24 32 40 48 56
  run 0 tune u.csv --shard 0/2 -o "$work/s0.csv" "${fast[@]}"
  expect "Shard 0/2 \(from --shard\)"
  run 0 tune u.csv --shard 1/2 -o "$work/s0.csv" "${fast[@]}"
  a=$(entries s0.rank0.csv); b=$(entries s0.rank1.csv)
  [ "$a" -ge 3 ] && [ "$b" -ge 3 ] && [ $((a + b)) = 7 ] || fail "shares of $a and $b problems"
  run 0 db merge "$work/merged.csv" "$work/s0.rank0.csv" "$work/s0.rank1.csv"
  expect "7 entries, 0 conflict"
  ;;
mpirun)  # two ranks under OpenMPI's mpirun, each with one worker; shares merged afterwards
  command -v mpirun >/dev/null || { echo "SKIP: mpirun is not installed (Debian: openmpi-bin)"; exit 77; }
  untuned u.csv 8 16 24 32 40 48
  flags=(-np 2 --oversubscribe)
  [ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
  timeout 120 mpirun "${flags[@]}" "$gemmtune" tune "$work/u.csv" --workers 1 -o "$work/m0.csv" "${fast[@]}" >out.log 2>&1 \
    || fail "mpirun failed"
  expect "Shard 0/2 \(from OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE\)"
  expect "Shard 1/2 \(from OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE\)"
  a=$(entries m_full0.rank0.csv); b=$(entries m_full0.rank1.csv)
  [ "$a" -ge 1 ] && [ "$b" -ge 1 ] && [ $((a + b)) = 6 ] || fail "ranks tuned $a and $b problems"
  run 0 db merge "$work/m_full0.csv" "$work/m_full0.rank0.csv" "$work/m_full0.rank1.csv"
  expect "6 entries, 0 conflict"
  ;;
usage)  # contradictory options and impossible devices
  untuned u.csv 8
  run 2 tune u.csv --workers 2 --backend cuda
  run 2 tune u.csv --gpus 1 --backend cpu
  run 2 tune u.csv --workers 1 --devices 0
  run 2 tune u.csv --devices 0,0 --backend cpu
  expect "--devices: each ordinal once, none negative or above 9999"
  run 2 tune u.csv --devices 0,10000 --backend cpu
  expect "--devices: each ordinal once, none negative or above 9999"
  GEMMTUNE_DEVICES=0,10000 run 2 tune u.csv --backend cpu
  expect "each ordinal once, none negative or above 9999"
  run 2 tune u.csv --shard 2/2
  expect "--shard: '2/2' is not a shard: expected I/N"
  run 2 tune u.csv --workers 100000
  expect "--workers: must be a finite number >= 0 and <= 256, not '100000'"
  # A GPU that is not there is refused before any worker starts (where some GPUs are there,
  # their workers would tune and the run end partial with the missing one lost).
  run 3 tune u.csv --devices 99 --backend cuda -o "$work/x.csv"
  expect "device 99: this machine has [0-9]+ CUDA GPU|no CUDA GPU is visible|built without CUDA"
  grep -q "worker" out.log && fail "a worker was started for a device that is not there"
  run 3 tune u.csv --gpus 200 --backend cuda -o "$work/x.csv"
  expect "devices? [0-9,]+ \(of devices 0,1,2,.*\): this machine has|no CUDA GPU is visible|built without CUDA"
  # The command line wins over the environment; two variables of the environment conflict.
  GEMMTUNE_GPUS=2 run 0 tune u.csv --workers 2 -o "$work/e0.csv" "${fast[@]}"
  expect "on 2 device\(s\) \(cpu"
  GEMMTUNE_DEVICES=0,1 run 0 tune u.csv --workers 2 -o "$work/f0.csv" "${fast[@]}"
  GEMMTUNE_GPUS=2 GEMMTUNE_WORKERS=2 run 2 tune u.csv -o "$work/g0.csv" "${fast[@]}"
  expect "GEMMTUNE_GPUS and GEMMTUNE_WORKERS are set: set one of them"
  # An input that is one of the files the run writes.
  untuned v0.csv 8
  untuned v1.csv 16
  run 3 tune "$work/v?.csv" --workers 2 -o "$work/v.csv" "${fast[@]}"
  expect "v0.csv: the output .*v.csv writes this file \(.*v0.csv\), which is also an input"
  [ "$(entries v0.csv)" = 1 ] || fail "v0.csv was changed"
  ;;
*) fail "unknown case" ;;
esac
echo "ok: $case_name"
