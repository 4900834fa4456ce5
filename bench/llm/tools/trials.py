#!/usr/bin/env python3
"""What the tuner's trials (a lead over Default that the confirmation did not take, tried in long
turns) turned into.

Reads details files (gemmtune_llm_bench --details) of runs with the trial. For every problem
whose details hold a "tuner's trial" line, it prints the configuration tried, its lead in the
tuner's confirmation and in the trial, the verdict, Default's time, and what the benchmark
measured a second later: Default's time over the configuration's (above 1: it is faster), from
the benchmark's evaluation where the configuration is the winner or the best of the top N there,
else from its sweep (the rank's line against Default's in the same sweep). Then, per verdict, how many, the mean of that ratio and how
many came out below 0.98 (what the floor target forbids).

usage: trials.py DETAILS.md...
"""
import re
import statistics
import sys

PROBLEM = re.compile(r"^## (#\d+ .*?) — ")
TRIAL = re.compile(r"^- tuner's trial: (\S+) (winner|slower): confirmation median ([\d.]+)% below "
                   r"Default's, .*?in the trial \(\d+ turns of [\d.]+ ms\) ([\d.]+)% (below|above)")
EVAL_DEFAULT = re.compile(r"^- re-measured Default: Default ([\d.]+) µs")
SWEEP_DEFAULT = re.compile(r"^- sweep's winner: Default ([\d.]+) µs")
EVAL_NAMED = re.compile(r"^- re-measured (?:winner|best of the top N): (\S+) ([\d.]+) µs")
SWEEP_RANK = re.compile(r"^  - rank \d+ \(sweep\): ([\d.]+) µs (\S+) ")


def short(name):
    """id66 t20 c1 cl3 for a cuBLASLt name, as the benchmark's tables write it."""
    m = re.match(r"Gemm_Cublaslt_id_(\d+)_tile_(\d+)_stages_\d+_splitk_(\d+)_red_\d+_swizzle_\d+_"
                 r"custom_(\d+)_inner_\d+_cluster_(\d+)", name)
    if not m:
        return name
    algo, tile, splitk, custom, cluster = m.groups()
    return f"id{algo} t{tile} c{custom} cl{cluster}" + (f" sk{splitk}" if splitk != "1" else "")


def problems(path):
    """(label, lines) per problem section of a details file."""
    label, lines = None, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = PROBLEM.match(line)
            if m:
                if label:
                    yield label, lines
                label, lines = m.group(1), []
            elif label:
                lines.append(line.rstrip("\n"))
    if label:
        yield label, lines


def verdict_group(verdict, trial_gain, line):
    """Why a trial ended as it did: won, lost for a turn behind (by the size of its lead: since
    the rule change a lead of 1% or more beyond the noise wins with turns behind), or lost on the
    lead itself."""
    if verdict == "winner":
        return "winner"
    if "not ahead in turn" in line or re.search(r"and ahead in \d+ of \d+ turns", line):
        return "slower: a turn behind, lead " + ("1% or more" if trial_gain >= 1.0 else "under 1%")
    return "slower: its lead"


def trial_rows(path):
    for label, lines in problems(path):
        for trial_line in (x for x in lines if TRIAL.match(x)):  # since 26ba4ab, one per trial
            yield from trial_row(path, label, lines, trial_line)


def trial_row(path, label, lines, trial_line):
    trial = TRIAL.match(trial_line)
    name, verdict, confirmation, lead, side = trial.groups()
    trial_gain = float(lead) * (1 if side == "below" else -1)
    default = next((float(m.group(1)) for m in map(EVAL_DEFAULT.match, lines) if m), None)
    evaluated = {m.group(1): float(m.group(2)) for m in map(EVAL_NAMED.match, lines) if m}
    swept = {m.group(2): float(m.group(1)) for m in map(SWEEP_RANK.match, lines) if m}
    # Default's sweep time is printed where Default is the winner (a trial lost).
    swept_default = next((float(m.group(1)) for m in map(SWEEP_DEFAULT.match, lines) if m),
                         None)
    if name in evaluated:
        ratio, source = default / evaluated[name], "evaluation"
    elif name in swept and swept_default:
        ratio, source = swept_default / swept[name], "sweep"
    else:
        ratio, source = None, "not timed"
    yield (path, label, short(name), float(confirmation), trial_gain,
           verdict_group(verdict, trial_gain, trial_line), default, ratio, source)


def main(paths):
    rows = [r for p in paths for r in trial_rows(p)]
    print("| file | problem | configuration | confirmation lead % | trial lead % | verdict | "
          "Default µs | Default/it in the benchmark | from |")
    print("|---|---|---|--:|--:|---|--:|--:|---|")
    for path, label, name, confirmation, trial, verdict, default, ratio, source in rows:
        shown = f"{ratio:.3f}" if ratio else "-"
        print(f"| {path.split('/')[-1]} | {label} | {name} | {confirmation:.2f} | {trial:.2f} | "
              f"{verdict} | {default:.1f} | {shown} | {source} |")
    print()
    for verdict in sorted({r[5] for r in rows}):
        ratios = [r[7] for r in rows if r[5] == verdict and r[7]]
        if ratios:
            print(f"- {verdict}: {len(ratios)}, mean Default/it {statistics.mean(ratios):.3f}, "
                  f"min {min(ratios):.3f}, max {max(ratios):.3f}, "
                  f"below 0.98: {sum(x < 0.98 for x in ratios)}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
