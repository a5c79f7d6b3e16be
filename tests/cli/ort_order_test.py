#!/usr/bin/python3
"""`onyx run --ort-order on|off`: the switch of SessionOptions::ort_summation_order. On the Softmax case of
tests/data/ort_order (ONNX Runtime 1.30's outputs at level disabled, made with MLAS's AVX-512F kernels), --ort-order on
reproduces them byte for byte even at --opt-level all, and off (onyx's own vectorized exp) does not; a bad value is a
usage error (exit 2).

usage: ort_order_test.py ONYX_BINARY
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ONYX = sys.argv[1]
CASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "ort_order", "softmax")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


with open("/proc/cpuinfo") as f:
    if " avx512f" not in f.read() or os.environ.get("ONYX_MAX_ISA", "").lower() == "avx2":
        print("skip: the references hold MLAS's AVX-512F sums")
        sys.exit(77)

model = os.path.join(CASE, "model.onnx")
names = [o.name for o in onnx.load(model, load_external_data=False).graph.output]
inp = onnx.load(model, load_external_data=False).graph.input[0].name
want = []
for i in range(len(names)):
    t = onnx.TensorProto()
    with open(os.path.join(CASE, "test_data_set_0", f"output_{i}.pb"), "rb") as f:
        t.ParseFromString(f.read())
    want.append(numpy_helper.to_array(t))


def identical(setting):
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([ONYX, "run", model, "--input", f"{inp}={os.path.join(CASE, 'test_data_set_0', 'input_0.pb')}",
                        "--output-dir", out, "--opt-level", "all", "--ort-order", setting, "--threads", "1"],
                       check=True, capture_output=True)
        got = [np.load(os.path.join(out, n + ".npy")) for n in names]
    return [g.tobytes() == w.astype(g.dtype).tobytes() for g, w in zip(got, want)]


on, off = identical("on"), identical("off")
check(all(on), f"--ort-order on at level all: every output identical to ONNX Runtime's ({sum(on)}/{len(on)})")
check(not all(off), f"--ort-order off: onyx's own order differs somewhere ({sum(off)}/{len(off)} identical)")
r = subprocess.run([ONYX, "run", model, "--ort-order", "maybe"], capture_output=True, text=True)
check(r.returncode == 2 and "--ort-order" in r.stderr, "--ort-order maybe -> exit 2 naming the option")
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
