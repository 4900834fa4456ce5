#!/usr/bin/env python3
"""table.py OUT_DIR: the side-by-side table of compare.sh's runs, in Markdown, with the targets."""
import re
import sys
from pathlib import Path

out = Path(sys.argv[1])


def summary(text):
    """The best-outcome blocks of a mamf-finder style report: [{mean, median, max, ...}, ...]."""
    blocks = []
    for m in re.finditer(
        r"mean:\s+([\d.]+) TFLOPS @ (\S+) \(MxNxK\)\nmedian:\s+([\d.]+) TFLOPS @ (\S+) \(MxNxK\)\n"
        r"max:\s+([\d.]+) TFLOPS @ (\S+) \(MxNxK\)\n(?:\n.*\n)?arithmetic mean: ([\d.]+) TFLOPS\n"
        r"geometric mean:\s+([\d.]+) TFLOPS",
        text,
    ):
        blocks.append(dict(mean=float(m[1]), mean_at=m[2], median=float(m[3]), median_at=m[4],
                           max=float(m[5]), max_at=m[6], amean=float(m[7]), gmean=float(m[8])))
    return blocks


walls = {}
rcs = {}
for line in (out / "walls.txt").read_text().splitlines():
    m = re.match(r"(\S+) rc=(\d+) wall=([\d.]+)s", line)
    if m:
        rcs[m[1]], walls[m[1]] = int(m[2]), float(m[3])

runs = [("mamf_finder", "mamf-finder.py", 0), ("gemmtune_default", "gemmtune mamf", 0),
        ("gemmtune_default_again", "gemmtune mamf (again)", 0),
        ("gemmtune_tuned", "gemmtune mamf --tuned: Default", 0),
        ("gemmtune_tuned", "gemmtune mamf --tuned: tuned", 1),
        ("gemmtune_lookup", "gemmtune mamf --results: Default", 0),
        ("gemmtune_lookup", "gemmtune mamf --results: looked up", 1)]
runs = [r for r in runs if (out / f"{r[0]}.txt").exists() or r[0] in ("mamf_finder", "gemmtune_default")]
cols = []
for name, label, block in runs:
    path = out / f"{name}.txt"
    text = path.read_text() if path.exists() else ""
    blocks = summary(text)
    warm = re.search(r"Warming up the accelerator[^\n]*", text)
    cols.append((label, blocks[block] if len(blocks) > block else None, walls.get(name),
                 warm[0] if warm else ""))

print("| | " + " | ".join(c[0] for c in cols) + " |")
print("|---|" + "---:|" * len(cols))
def row(title, fn):
    print(f"| {title} | " + " | ".join(fn(c) for c in cols) + " |")
row("best mean TFLOPS", lambda c: f"{c[1]['mean']:.1f} @ {c[1]['mean_at']}" if c[1] else "n/a")
row("best median TFLOPS", lambda c: f"{c[1]['median']:.1f} @ {c[1]['median_at']}" if c[1] else "n/a")
row("best max TFLOPS", lambda c: f"{c[1]['max']:.1f} @ {c[1]['max_at']}" if c[1] else "n/a")
row("arithmetic mean TFLOPS", lambda c: f"{c[1]['amean']:.1f}" if c[1] else "n/a")
row("geometric mean TFLOPS", lambda c: f"{c[1]['gmean']:.1f}" if c[1] else "n/a")
row("whole wall time (process)", lambda c: f"{c[2]:.1f} s" if c[2] is not None else "n/a")

by = {(name, block): col for (name, _, block), col in zip(runs, cols)}
def best_mean(name, block=0):
    col = by.get((name, block))
    return col[1]["mean"] if col and col[1] else None
ref = best_mean("mamf_finder")
print()
def pct(name, block=0):
    v = best_mean(name, block)
    return f"{100.0 * (v / ref - 1.0):+.2f}%" if v and ref else "n/a"
if ref:
    print(f"- Default vs mamf-finder.py, best mean: {pct('gemmtune_default')} (again: "
          f"{pct('gemmtune_default_again')}; Default series of the --tuned run: {pct('gemmtune_tuned')}; "
          f"of the --results run: {pct('gemmtune_lookup')}); target within ±1%")
    print(f"- --tuned vs mamf-finder.py, best mean: {pct('gemmtune_tuned', 1)}; target ≥ +2%")
    print(f"- --results (winners of an earlier --tuned run) vs mamf-finder.py, best mean: "
          f"{pct('gemmtune_lookup', 1)}")
for name in ("gemmtune_tuned", "gemmtune_lookup"):
    d, t = best_mean(name, 0), best_mean(name, 1)
    if d and t:
        print(f"- {name}: tuned/looked-up series vs its own Default series, best mean: {100.0 * (t / d - 1):+.2f}%")
if walls.get("mamf_finder") and walls.get("gemmtune_default"):
    print(f"- wall time, gemmtune Default / mamf-finder.py: {walls['gemmtune_default']:.1f} / "
          f"{walls['mamf_finder']:.1f} s = {walls['gemmtune_default'] / walls['mamf_finder']:.2f}; target ≤ 0.33")
for (name, block), c in by.items():
    if block == 0 and name != "mamf_finder" and c[3]:
        print(f"- {name}: {c[3]}")
bad = {k: v for k, v in rcs.items() if v != 0}
if bad:
    print(f"- exit codes not 0: {bad}")
