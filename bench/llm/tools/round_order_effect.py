#!/usr/bin/env python3
"""The round-order effect in the LLM benchmark's details files (gemmtune_llm_bench --details).

The evaluation runs Default, heuristic #0, the best of the top 8 and the winner in interleaved
rounds. Up to run 58 the order was reversed every other round, so the winner (last in even rounds,
first in odd ones) ran two turns back to back at each even->odd boundary and Default at each
odd->even one. For each decode problem with four distinct entries this prints, over the problems
of each file, the mean of log(X/Y) in even rounds minus odd rounds, in percent (with its standard
error): where X follows itself in odd rounds, a negative value is X's slowdown after its own turn.
From run 59 the order turns by one entry per round (tuner/round_order.hpp) and no entry follows
itself, so the same numbers are a control and should be near zero.

usage: round_order_effect.py DETAILS.md...
"""
import math
import re
import statistics
import sys

ENTRY = re.compile(r"- re-measured (Default|winner|heuristic #0|best of the top N): (\S+) "
                   r"[\d.]+ µs.*\(round medians ([^)]*)\)")
PROBLEM = re.compile(r"## #(\d+) ")


def problems(path):
    found = []
    for line in open(path, encoding="utf-8"):
        m = PROBLEM.match(line)
        if m:
            found.append({"number": int(m.group(1)), "entries": {}})
            continue
        m = ENTRY.match(line)
        if m and found:
            rounds = [float(x) for x in m.group(3).split(",") if x.strip()]
            found[-1]["entries"][m.group(1)] = (m.group(2), rounds)
    return found


def even_minus_odd(x, y):
    logs = [math.log(a / b) for a, b in zip(x, y)]
    return 100 * (statistics.mean(logs[0::2]) - statistics.mean(logs[1::2]))


def main(paths):
    pairs = {"winner/Default": ("winner", "Default"),
             "winner/top-8 best": ("winner", "best of the top N"),
             "top-8 best/heur#0": ("best of the top N", "heuristic #0"),
             "Default/heur#0": ("Default", "heuristic #0")}
    for path in paths:
        shifts = {name: [] for name in pairs}
        for p in problems(path):
            e = p["entries"]
            if p["number"] > 64 or len(e) < 4 or len({v[0] for v in e.values()}) < 4:
                continue  # decode rows 1-64 with four distinct entries only
            for name, (x, y) in pairs.items():
                shifts[name].append(even_minus_odd(e[x][1], e[y][1]))
        count = len(shifts["winner/Default"])
        cells = []
        for name, values in shifts.items():
            if len(values) > 1:
                se = statistics.stdev(values) / math.sqrt(len(values))
                cells.append(f"{name} {statistics.mean(values):+.2f}±{se:.2f}")
        print(f"{path.split('/')[-1]}: {count} problems: " + "; ".join(cells))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
