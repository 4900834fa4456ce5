#!/usr/bin/env python3
"""PyTorch's TunableOp and gemmtune's files, both ways, on this machine's GPU.

  pytorch_roundtrip.py record DIR   PyTorch records the GEMMs of a small model (untuned file)
                                    and tunes them itself (its results file: the reference
                                    for the validators)
  pytorch_roundtrip.py check FILE   PyTorch loads FILE (a results file gemmtune wrote), runs
                                    the same GEMMs with tuning off and checks that it took
                                    every entry, ran without error and computed what it
                                    computes without TunableOp

Exit status 77 where PyTorch or a GPU is missing (ctest's skip), 1 on a failed check.
tests/gpu/pytorch_roundtrip.sh drives it with gemmtune in between.
"""
import os
import sys


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


try:
    import torch
except ImportError:
    skip("PyTorch is not installed")
if not torch.cuda.is_available():
    skip("no CUDA device")


def workload():
    """The GEMMs of a small transformer block, in the dtypes and kinds TunableOp records:
    linear layers (TN), their backward (NN, NT), a batched matmul (strided batched) and a
    linear with bias (GemmAndBias where PyTorch routes it there)."""
    torch.manual_seed(0)
    out = []
    for dtype in (torch.bfloat16, torch.float16, torch.float32):
        x = torch.randn(64, 512, device="cuda", dtype=dtype, requires_grad=True)
        w = torch.randn(1024, 512, device="cuda", dtype=dtype, requires_grad=True)
        b = torch.randn(1024, device="cuda", dtype=dtype)
        y = torch.nn.functional.linear(x, w)
        y.backward(torch.ones_like(y))
        out += [y.detach(), x.grad, w.grad]
        out.append(torch.nn.functional.linear(x.detach(), w.detach(), b))
        q = torch.randn(8, 128, 64, device="cuda", dtype=dtype)
        k = torch.randn(8, 64, 128, device="cuda", dtype=dtype)
        out.append(torch.bmm(q, k))
    torch.cuda.synchronize()
    return out


def record(directory):
    tunable = torch.cuda.tunable
    os.makedirs(directory, exist_ok=True)
    tunable.enable(True)
    tunable.tuning_enable(False)
    tunable.record_untuned_enable(True)
    tunable.set_filename(os.path.join(directory, "pytorch_results.csv"))
    # PyTorch writes its results file when the process exits.
    workload()
    tunable.record_untuned_enable(False)
    tunable.tuning_enable(True)
    tunable.set_max_tuning_iterations(10)
    workload()
    print(f"recorded and tuned {len(tunable.get_results())} GEMMs; validators "
          f"{dict(tunable.get_validators())}")


def check(path):
    tunable = torch.cuda.tunable
    reference = workload()  # TunableOp off: PyTorch's own calls
    tunable.enable(True)
    tunable.tuning_enable(False)
    tunable.record_untuned_enable(False)
    # Whatever PyTorch writes at exit goes beside FILE, not over it.
    tunable.set_filename(path[:-len(".csv")] + "-pytorch-exit.csv")
    if not tunable.read_file(path):
        print(f"FAIL: PyTorch did not load {path}")
        sys.exit(1)
    entries = {(op, params): solution for op, params, solution, _ in tunable.get_results()}
    with open(path) as f:
        wanted = [line.strip().split(",") for line in f
                  if line.strip() and not line.startswith("Validator,")]
    missing = [w for w in wanted if entries.get((w[0], w[1])) != w[2]]
    for w in missing:
        print(f"FAIL: PyTorch did not take {w[0]},{w[1]},{w[2]}")
    tuned = workload()
    worst = 0.0
    for expected, got in zip(reference, tuned):
        scale = expected.float().abs().max().item() or 1.0
        worst = max(worst, (expected.float() - got.float()).abs().max().item() / scale)
    solutions = sorted({w[2] for w in wanted})
    print(f"PyTorch {torch.__version__} loaded {len(entries)} entries of {len(wanted)} "
          f"({len(solutions)} distinct solutions: {', '.join(solutions)}); "
          f"largest difference from TunableOp off, relative to the output's largest value: {worst:.3g}")
    if missing or worst > 2e-2:
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("record", "check"):
        print(__doc__)
        sys.exit(2)
    record(sys.argv[2]) if sys.argv[1] == "record" else check(sys.argv[2])
