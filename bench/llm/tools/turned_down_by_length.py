#!/usr/bin/env python3
"""The leads the tuner turned down for being under the minimum gain, by the GEMM's length.

Reads details files (gemmtune_llm_bench --details). For every candidate turned down with
"confirmation median X% below Default's, less than the minimum gain" that is one of the heuristic's
ranks the benchmark times, it takes the ratio Default / candidate the benchmark measured afterwards
(above 1: the candidate is faster): from the evaluation where the candidate is the best of the top
N there, else from the sweep. It prints, by Default's time (under 100 µs, 100-400 µs, over 400 µs)
and by the tuner's lead, how many, the mean ratio, the lowest, and how many the benchmark put
below 0.98 (what the floor target forbids) and above 1.01; then the lowest twelve.

It answers: what would taking these leads have cost the floor, on the GEMMs too long for a trial?

usage: turned_down_by_length.py DETAILS.md...
"""
import re
import statistics
import sys

TURNED_DOWN = re.compile(r"rank \d+ \(sweep\): ([\d.]+) µs (\S+) — tuner: slower [\d.]+ µs \(\d+ "
                         r"it\): confirmation median ([\d.]+)% below Default's, less than the "
                         r"minimum gain")
EVAL_DEFAULT = re.compile(r"re-measured Default: Default ([\d.]+) µs")
SWEEP_DEFAULT = re.compile(r"sweep's winner: Default ([\d.]+) µs")
EVAL_TOP_BEST = re.compile(r"re-measured best of the top N: (\S+) ([\d.]+) µs")


def rows_of(path):
    text = open(path, encoding="utf-8").read()
    for section in re.split(r"\n(?=## #)", text):
        head = re.match(r"## #(\d+) ", section)
        default = EVAL_DEFAULT.search(section)
        if not head or not default:
            continue
        default_us = float(default.group(1))
        sweep_default = SWEEP_DEFAULT.search(section)
        top_best = EVAL_TOP_BEST.search(section)
        for m in TURNED_DOWN.finditer(section):
            name, lead = m.group(2), float(m.group(3))
            if top_best and top_best.group(1) == name:
                ratio, source = default_us / float(top_best.group(2)), "evaluation"
            elif sweep_default:
                ratio, source = float(sweep_default.group(1)) / float(m.group(1)), "sweep"
            else:
                continue
            yield default_us, lead, ratio, source, path, head.group(1), name


def main(paths):
    rows = [r for p in paths for r in rows_of(p)]
    print("| Default µs | tuner's lead % | n | mean Default/candidate | lowest | below 0.98 | above "
          "1.01 |")
    print("|---|---|--:|--:|--:|--:|--:|")
    for lo, hi in [(0, 100), (100, 400), (400, float("inf"))]:
        for a, b in [(0, 0.5), (0.5, 1.0), (1.0, 1.5)]:
            ratios = [r[2] for r in rows if lo <= r[0] < hi and a <= r[1] < b]
            if not ratios:
                continue
            print(f"| {lo}–{hi if hi != float('inf') else ''} | {a}–{b} | {len(ratios)} | "
                  f"{statistics.mean(ratios):.4f} | {min(ratios):.3f} | "
                  f"{sum(x < 0.98 for x in ratios)} | {sum(x > 1.01 for x in ratios)} |")
    print("\nlowest:")
    for r in sorted(rows, key=lambda r: r[2])[:12]:
        print(f"- {r[2]:.3f} ({r[3]}), Default {r[0]:.0f} µs, lead {r[1]}%, {r[4]} #{r[5]} {r[6]}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
