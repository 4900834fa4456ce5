#!/usr/bin/env python3
"""What the tuner's leads over Default turned out to be in the LLM benchmark's later measurement.

Reads details files (gemmtune_llm_bench --details). For every problem, it pairs the tuner's lead of
a candidate over Default with the ratio Default / candidate that the benchmark measured afterwards
(above 1: the candidate is faster):

- candidates turned down for a lead under the minimum gain ("confirmation median X% below
  Default's, less than the minimum gain"), when the candidate is one of the heuristic's ranks the
  benchmark times: the ratio from the benchmark's evaluation where the candidate is the best of
  the top N there, else from its sweep (noisier: ten rounds among nine or more entries);
- winners that replaced Default: the tuner's lead from its "tuner:" line, the ratio from the
  evaluation.

It prints, by bin of the tuner's lead, how many, the mean ratio, and how many the benchmark put
below 0.98 (what the floor target forbids) and above 1.01 (a gain the minimum gain gave up).

Then how far the benchmark's own two measurements, seconds apart in one process, disagree on one
comparison: the ratio of heuristic #0 to a winner other than Default, both chosen before either
measurement (so neither carries a winner's curse), in the sweep and in the evaluation:
100 · log(evaluation ratio / sweep ratio), for decode problems and for the others.

Last, how often the benchmark's evaluation calls Default and heuristic #0 different beyond its
noise (two standard errors of the per-round log ratios, as bench/llm/baselines.cpp computes it),
each way: two entries that are often the same kernel, or nearly, so a count well above the
nominal few percent says that the noise leaves out part of the variation.

usage: small_leads.py DETAILS.md...
"""
import math
import re
import statistics
import sys

TURNED_DOWN = re.compile(r"rank \d+ \(sweep\): ([\d.]+) µs (\S+) .*confirmation median ([\d.]+)% "
                         r"below Default's, less than the minimum gain")
SWEEP_DEFAULT = re.compile(r"sweep's winner: Default ([\d.]+) µs")
EVAL_DEFAULT = re.compile(r"re-measured Default: Default ([\d.]+) µs")
EVAL_TOP_BEST = re.compile(r"re-measured best of the top N: (\S+) ([\d.]+) µs")
EVAL_WINNER = re.compile(r"re-measured winner: (\S+) ([\d.]+) µs")
TUNER = re.compile(r"- tuner: winner (\S+) ([\d.]+) µs, Default ([\d.]+) µs")
SWEEP_WINNER = re.compile(r"sweep's winner: (\S+) ([\d.]+) µs")
EVAL_HEURISTIC0 = re.compile(r"re-measured heuristic #0: (\S+) ([\d.]+) µs")
EVAL_ENTRY = re.compile(r"- re-measured (Default|heuristic #0): (\S+) ([\d.]+) µs.*"
                        r"\(round medians ([^)]*)\)")
SWEEP_RANK = re.compile(r"rank \d+ \(sweep\): ([\d.]+) µs (\S+)")
BINS = [(0.0, 0.5), (0.5, 1.0), (1.0, 1.5), (1.5, 2.5), (2.5, 5.0), (5.0, 1e9)]


def sections(path):
    text = open(path, encoding="utf-8").read()
    return text.split("\n## ")[1:]


def observations(section):
    """(tuner's lead in %, benchmark's Default/candidate ratio, where the ratio is from)."""
    found = []
    eval_default = EVAL_DEFAULT.search(section)
    tuner = TUNER.search(section)
    if tuner and tuner.group(1) != "Default":
        lead = 100 * (1 - float(tuner.group(2)) / float(tuner.group(3)))
        winner = EVAL_WINNER.search(section)
        if eval_default and winner:
            found.append((lead, float(eval_default.group(1)) / float(winner.group(2)), "winner"))
        return found
    sweep_default = SWEEP_DEFAULT.search(section)
    top_best = EVAL_TOP_BEST.search(section)
    for line in section.split("\n"):
        m = TURNED_DOWN.search(line)
        if not m:
            continue
        lead, name = float(m.group(3)), m.group(2)
        if top_best and eval_default and top_best.group(1) == name:
            found.append((lead, float(eval_default.group(1)) / float(top_best.group(2)),
                          "evaluation"))
        elif sweep_default:
            found.append((lead, float(sweep_default.group(1)) / float(m.group(1)), "sweep"))
    return found


def sweep_to_evaluation_shift(section):
    """100 · log of the evaluation's heuristic #0 / winner over the sweep's, or None."""
    winner = SWEEP_WINNER.search(section)
    evaluated = EVAL_WINNER.search(section)
    heuristic0 = EVAL_HEURISTIC0.search(section)
    if not (winner and evaluated and heuristic0) or winner.group(1) == "Default":
        return None
    ranks = {name: float(ms) for ms, name in SWEEP_RANK.findall(section)}
    if heuristic0.group(1) not in ranks or heuristic0.group(1) == winner.group(1):
        return None
    in_sweep = ranks[heuristic0.group(1)] / float(winner.group(2))
    in_evaluation = float(heuristic0.group(2)) / float(evaluated.group(2))
    return 100 * math.log(in_evaluation / in_sweep)


def default_against_heuristic0(section):
    """(Default / heuristic #0 in the evaluation, the benchmark's noise of that comparison)."""
    entries = {m.group(1): (float(m.group(3)), [float(x) for x in m.group(4).split(",")])
               for m in EVAL_ENTRY.finditer(section)}
    if len(entries) < 2:
        return None
    (d, d_rounds), (h, h_rounds) = entries["Default"], entries["heuristic #0"]
    logs = [math.log(x / y) for x, y in zip(d_rounds, h_rounds)]
    if len(logs) < 2:
        return None
    return d / h, math.expm1(2 * statistics.stdev(logs) / math.sqrt(len(logs)))


def print_calibration(pairs):
    print()
    print("| problems | comparisons | Default slower beyond noise | heuristic #0 slower beyond noise |")
    print("|---|---|---|---|")
    for label, values in pairs.items():
        if values:
            slower = sum(r - 1 > n for r, n in values)
            faster = sum(1 - r > n for r, n in values)
            print(f"| {label} | {len(values)} | {slower} | {faster} |")


def print_shifts(shifts):
    print()
    print("| problems | comparisons | mean shift % | standard deviation % | robust (1.4826·MAD) % "
          "| beyond ±1% | beyond ±2% |")
    print("|---|---|---|---|---|---|---|")
    for label, values in shifts.items():
        if len(values) < 2:
            continue
        middle = statistics.median(values)
        mad = statistics.median(abs(v - middle) for v in values)
        print(f"| {label} | {len(values)} | {statistics.mean(values):+.2f} | "
              f"{statistics.stdev(values):.2f} | {1.4826 * mad:.2f} | "
              f"{sum(abs(v) > 1 for v in values)} | {sum(abs(v) > 2 for v in values)} |")


def main(paths):
    everything = []
    shifts = {"decode (n ≤ 64)": [], "prefill and backward (n = 4096)": []}
    calibration = {"decode (n ≤ 64)": [], "prefill and backward (n = 4096)": []}
    for path in paths:
        for section in sections(path):
            everything.extend(observations(section))
            title = section.split("\n")[0]
            kind = "prefill and backward (n = 4096)" if " n=4096" in title else "decode (n ≤ 64)"
            shift = sweep_to_evaluation_shift(section)
            if shift is not None:
                shifts[kind].append(shift)
            pair = default_against_heuristic0(section)
            if pair is not None:
                calibration[kind].append(pair)
    print("| tuner's lead over Default | kind | count | mean Default/candidate in the benchmark "
          "| below 0.98 | above 1.01 |")
    print("|---|---|---|---|---|---|")
    for low, high in BINS:
        for kind in ("turned down", "winner"):
            ratios = [r for lead, r, source in everything if low <= lead < high and
                      (source == "winner") == (kind == "winner")]
            if not ratios:
                continue
            label = f"{low:.1f}–{high:.1f}%" if high < 1e9 else f"≥ {low:.1f}%"
            print(f"| {label} | {kind} | {len(ratios)} | {statistics.mean(ratios):.4f} | "
                  f"{sum(r < 0.98 for r in ratios)} | {sum(r > 1.01 for r in ratios)} |")
    print()
    print("| tuner's lead | turned down, the benchmark's ratio from | count | mean | median "
          "| below 0.98 | above 1.01 |")
    print("|---|---|---|---|---|---|---|")
    for source in ("evaluation", "sweep"):
        for low, high in BINS[:3]:
            ratios = [r for lead, r, s in everything if s == source and low <= lead < high]
            if ratios:
                print(f"| {low:.1f}–{high:.1f}% | {source} | {len(ratios)} | "
                      f"{statistics.mean(ratios):.4f} | {statistics.median(ratios):.4f} | "
                      f"{sum(r < 0.98 for r in ratios)} | {sum(r > 1.01 for r in ratios)} |")
    print_shifts(shifts)
    print_calibration(calibration)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
