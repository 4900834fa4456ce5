#!/usr/bin/env python3
"""How far the operands' allocation moves the benchmark's comparisons.

Reads details files of gemmtune_llm_bench --placement-probe runs. Each problem's evaluation
(Default, heuristic #0, the best of the top 8, the winner) was timed again three times right after
it: on the same operands, on a second allocation of them (the same values, other addresses) and
on a third (other values too). For every solution but Default, its time over Default's is taken in
each, and the change of that ratio (in %, as a log) between two of them is one sample: the
standard deviation of those samples is how far a comparison moves from one to the other.

Printed per class (decode: problems 1-64; long: the prefill and backward GEMMs), then per kind of
solution (gemmtune's skinny kernels, cuBLASLt with and without split-K) for the step from the same
operands to the second allocation, and the largest such moves.

usage: placement_probe.py DETAILS.md...
"""
import math
import re
import statistics
import sys
from collections import defaultdict

LINE = re.compile(r"^- (re-measured (?:Default|winner|heuristic #0|best of the top N)|"
                  r"probe on (.*?)): (\S+) ([\d.]+) µs")
EVAL = "the evaluation"
SAME = "the same operands"
SECOND = "a second allocation, the same values"
THIRD = "a third allocation, other values"
STEPS = [(EVAL, SAME), (SAME, SECOND), (SAME, THIRD), (SECOND, THIRD)]


def problems(path):
    """(number, {timing: {solution: µs}}) per problem of a details file with probes."""
    with open(path, encoding="utf-8") as f:
        sections = f.read().split("\n## ")[1:]
    for section in sections:
        lines = section.split("\n")
        number = int(re.match(r"#(\d+)", lines[0]).group(1))
        timings = defaultdict(dict)
        for line in lines:
            m = LINE.match(line)
            if m:
                timings[m.group(2) or EVAL][m.group(3)] = float(m.group(4))
        if SAME in timings and "Default" in timings[EVAL]:
            yield number, timings


def kind(name, number):
    if name.startswith("Gemmtune"):
        k = "skinny"
    elif re.search(r"_splitk_1_", name):
        k = "cuBLASLt, no split-K"
    else:
        k = "cuBLASLt, split-K"
    return f"{k}, {'decode' if number <= 64 else 'long'}"


def main(paths):
    by_step = defaultdict(list)
    by_kind = defaultdict(list)
    moves = []
    for path in paths:
        for number, timings in problems(path):
            cls = "decode" if number <= 64 else "long"
            for name in timings[EVAL]:
                if name == "Default":
                    continue
                ratio = {t: 100 * math.log(v[name] / v["Default"])
                         for t, v in timings.items() if name in v and "Default" in v}
                for a, b in STEPS:
                    if a in ratio and b in ratio:
                        by_step[(cls, a, b)].append(ratio[b] - ratio[a])
                if SAME in ratio and SECOND in ratio:
                    move = ratio[SECOND] - ratio[SAME]
                    by_kind[kind(name, number)].append(move)
                    moves.append((abs(move), move, number, name))
    print("| problems | from | to | n | sd % | mean % | largest % |\n|---|---|---|--:|--:|--:|--:|")
    for (cls, a, b), v in sorted(by_step.items()):
        print(f"| {cls} | {a} | {b} | {len(v)} | {statistics.pstdev(v):.2f} | "
              f"{statistics.mean(v):+.2f} | {max(map(abs, v)):.2f} |")
    print("\nFrom the same operands to a second allocation, by kind of solution:\n")
    print("| kind | n | sd % | mean % |\n|---|--:|--:|--:|")
    for k, v in sorted(by_kind.items()):
        print(f"| {k} | {len(v)} | {statistics.pstdev(v):.2f} | {statistics.mean(v):+.2f} |")
    print("\nLargest moves: " + "; ".join(f"#{n} {name} {m:+.2f}%"
                                         for _, m, n, name in sorted(moves, reverse=True)[:5]))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
