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


# Why each fp8 call of the last workload() raised, by its name: a PyTorch may not run every
# _scaled_mm form under TunableOp, which is reported, not failed, where it cannot run it at all.
fp8_errors = {}


def fp8_calls():
    """fp8 GEMMs through torch._scaled_mm (ScaledGemm), where the GPU has fp8 tensor cores: one
    scale per tensor, with and without a bias, e4m3 times e5m2 into fp32, and row-wise scales.
    _scaled_mm takes its second operand column-major, hence the transposes."""
    if torch.cuda.get_device_capability() < (8, 9):
        return []
    a = torch.randn(64, 512, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(1024, 512, device="cuda").to(torch.float8_e4m3fn).t()
    b5 = torch.randn(1024, 512, device="cuda").to(torch.float8_e5m2).t()
    half = torch.tensor(0.5, device="cuda")
    two = torch.tensor(2.0, device="cuda")
    bias = torch.randn(1024, device="cuda", dtype=torch.bfloat16)
    rows = torch.rand(64, 1, device="cuda") + 0.5
    cols = torch.rand(1, 1024, device="cuda") + 0.5
    mm = torch._scaled_mm
    bf16 = torch.bfloat16
    return [
        ("fp8 e4m3, bf16 out", lambda: mm(a, b, scale_a=half, scale_b=two, out_dtype=bf16)),
        ("fp8 e4m3 with bias", lambda: mm(a, b, scale_a=half, scale_b=two, bias=bias, out_dtype=bf16)),
        ("fp8 e4m3 x e5m2, fp32 out",
         lambda: mm(a, b5, scale_a=half, scale_b=two, out_dtype=torch.float32)),
        ("fp8 e4m3 row-wise scales", lambda: mm(a, b, scale_a=rows, scale_b=cols, out_dtype=bf16)),
    ]


def workload():
    """The GEMMs of a small transformer block, in the dtypes and kinds TunableOp records:
    linear layers (TN), their backward (NN, NT), a batched matmul (strided batched), a
    linear with bias (GemmAndBias where PyTorch routes it there) and fp8 GEMMs (ScaledGemm).
    An fp8 call that raises gives None, and its reason goes to fp8_errors."""
    torch.manual_seed(0)
    fp8_errors.clear()
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
    for name, call in fp8_calls():
        try:
            out.append(call())
            torch.cuda.synchronize()
        except RuntimeError as e:
            fp8_errors[name] = str(e).splitlines()[0]
            out.append(None)
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
    for name, why in fp8_errors.items():
        print(f"PyTorch {torch.__version__} does not run {name} under TunableOp: {why}")


def check(path):
    tunable = torch.cuda.tunable
    reference = workload()  # TunableOp off: PyTorch's own calls
    cannot_run = dict(fp8_errors)
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
    broken = {name: why for name, why in fp8_errors.items() if name not in cannot_run}
    for name, why in broken.items():
        print(f"FAIL: {name} ran without TunableOp and raised with this file loaded: {why}")
    worst = 0.0
    for expected, got in zip(reference, tuned):
        if expected is None or got is None:
            continue
        scale = expected.float().abs().max().item() or 1.0
        worst = max(worst, (expected.float() - got.float()).abs().max().item() / scale)
    solutions = sorted({w[2] for w in wanted})
    print(f"PyTorch {torch.__version__} loaded {len(entries)} entries of {len(wanted)} "
          f"({len(solutions)} distinct solutions: {', '.join(solutions)}); "
          f"largest difference from TunableOp off, relative to the output's largest value: {worst:.3g}")
    if missing or broken or worst > 2e-2:
        sys.exit(1)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("record", "check"):
        print(__doc__)
        sys.exit(2)
    record(sys.argv[2]) if sys.argv[1] == "record" else check(sys.argv[2])
