#!/usr/bin/python3
"""Random Conv / ConvTranspose / AveragePool geometries (1-3-D, groups, strides, dilations, asymmetric pads, batch,
ceil_mode, count_include_pad) run at level disabled with ONNX Runtime's summation order on and off: the two orders
must agree within 1e-4 (they differ only in rounding), and neither may fail. The ORT-order kernels index their own
im2col / col2im / pooling buffers, so a wrong bound shows here as a difference or, in a sanitizer build, as a report.
AveragePool pads stay below the kernel, as ONNX Runtime requires.

usage: ort_order_geometries.py ONYX_BINARY [SEED] [CASES]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ONYX = sys.argv[1]
rng = np.random.default_rng(int(sys.argv[2]) if len(sys.argv) > 2 else 12)
CASES = int(sys.argv[3]) if len(sys.argv) > 3 else 40
failures = []


def model_for(case):
    nd = int(rng.integers(1, 4))
    op = ["Conv", "ConvTranspose", "AveragePool"][case % 3]
    g = int(rng.choice([1, 1, 2, 3]))
    cin, cout = g * int(rng.integers(1, 5)), g * int(rng.integers(1, 5))
    k = [int(rng.integers(1, 4)) for _ in range(nd)]
    s = [int(rng.integers(1, 3)) for _ in range(nd)]
    d = [int(rng.integers(1, 3)) for _ in range(nd)] if op != "AveragePool" else [1] * nd
    if op == "AveragePool":
        p = [int(rng.integers(0, k[i % nd])) for i in range(2 * nd)]
    else:
        p = [int(rng.integers(0, 2)) for _ in range(2 * nd)]
    hi = 12 if nd < 3 else 7
    sp = [int(rng.integers(max(k[i] * d[i], 2), hi)) for i in range(nd)]
    x = rng.standard_normal([int(rng.integers(1, 3)), cin] + sp).astype(np.float32)
    inits = []
    if op == "AveragePool":
        node = helper.make_node(op, ["x"], ["y"], kernel_shape=k, strides=s, pads=p,
                                count_include_pad=int(rng.integers(0, 2)), ceil_mode=int(rng.integers(0, 2)))
    else:
        wshape = [cout, cin // g] + k if op == "Conv" else [cin, cout // g] + k
        inits = [numpy_helper.from_array(rng.standard_normal(wshape).astype(np.float32), "w"),
                 numpy_helper.from_array(rng.standard_normal([cout]).astype(np.float32), "b")]
        node = helper.make_node(op, ["x", "w", "b"], ["y"], group=g, kernel_shape=k, strides=s, dilations=d, pads=p)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), x, f"{op} {nd}-D g{g} k{k} s{s} d{d} p{p} x{list(x.shape)}"


with tempfile.TemporaryDirectory() as work:
    for case in range(CASES):
        model, x, what = model_for(case)
        path, xin = os.path.join(work, "m.onnx"), os.path.join(work, "x.npy")
        onnx.save(model, path)
        np.save(xin, x)
        outs = []
        for setting in ("on", "off"):
            out = os.path.join(work, setting)
            r = subprocess.run([ONYX, "run", path, "--input", "x=" + xin, "--opt-level", "disabled", "--ort-order",
                                setting, "--threads", str(1 + case % 2), "--output-dir", out],
                               capture_output=True, text=True)
            outs.append(np.load(os.path.join(out, "y.npy")) if r.returncode == 0 else r)
        ok = all(isinstance(o, np.ndarray) for o in outs) and outs[0].shape == outs[1].shape and \
            np.allclose(outs[0], outs[1], rtol=1e-4, atol=1e-4)
        if not ok:
            failures.append(what)
            detail = [o.stderr.strip()[-300:] if not isinstance(o, np.ndarray) else o.shape for o in outs]
            print(f"FAIL {what}: {detail}")
print(f"{CASES} geometries, {len(failures)} failed")
sys.exit(1 if failures else 0)
