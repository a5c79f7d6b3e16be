#!/usr/bin/python3
"""Bit-exactness of onyx against ONNX Runtime 1.30 on quantized models too big for the test data (the benchmark
QDQ models of bench/make_quantized_models.py): one random input, optimization levels disabled and all, 1 and 2
threads, every output compared byte for byte. With --last-8bit the input of the model's last DequantizeLinear (the
network's last 8-bit tensor) is exposed as an extra output first, so that the integer part can be judged apart from
a float head (whose summation order differs between any two GEMMs).

usage: NODE_PATH=~/.cache/onyx-bench/ort/node_modules bench/quant_exact_vs_ort.py ONYX MODEL... [--last-8bit]
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_REFERENCE = os.path.join(HERE, "..", "tests", "quant", "ort_reference.mjs")


def expose_last_8bit(src, dst):
    m = onnx.load(src)
    inits = {i.name for i in m.graph.initializer}
    dq = [n for n in m.graph.node if n.op_type == "DequantizeLinear" and n.input[0] not in inits]
    # The 8-bit type: the zero point's (uint8 or int8), uint8 when the DequantizeLinear omits it.
    zp = dq[-1].input[2] if len(dq[-1].input) > 2 else ""
    elem = next((i.data_type for i in m.graph.initializer if i.name == zp), onnx.TensorProto.UINT8)
    m.graph.output.insert(0, onnx.helper.make_tensor_value_info(dq[-1].input[0], elem, None))
    onnx.save(m, dst)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    last_8bit = "--last-8bit" in sys.argv
    onyx, models = args[0], args[1:]
    failures = 0
    for model in models:
        with tempfile.TemporaryDirectory() as d:
            if last_8bit:
                exposed = os.path.join(d, "model.onnx")
                expose_last_8bit(model, exposed)
                model_file = exposed
            else:
                model_file = model
            m = onnx.load(model_file, load_external_data=False)
            if len(m.graph.input) != 1:
                print(f"{model}: skipped (more than one input)")
                continue
            inp = m.graph.input[0]
            dims = [dim.dim_value or 1 for dim in inp.type.tensor_type.shape.dim]
            elem = inp.type.tensor_type.elem_type
            rng = np.random.default_rng(0)
            if elem == onnx.TensorProto.UINT8:
                x = rng.integers(0, 256, dims, dtype=np.uint8)
            elif elem == onnx.TensorProto.INT8:
                x = rng.integers(-128, 128, dims, dtype=np.int8)
            else:
                x = rng.random(dims, dtype=np.float32)
            pb = os.path.join(d, "input_0.pb")
            with open(pb, "wb") as f:
                f.write(numpy_helper.from_array(x, inp.name).SerializeToString())
            for level in ["disabled", "all"]:
                ref = os.path.join(d, "ref_" + level)
                subprocess.run(["node", ORT_REFERENCE, model_file, pb, ref, level, "1"], check=True, capture_output=True)
                refs = [numpy_helper.to_array(onnx.load_tensor(os.path.join(ref, f"output_{i}.pb")))
                        for i in range(len(m.graph.output))]
                for threads in [1, 2]:
                    out = os.path.join(d, f"onyx_{level}_{threads}")
                    subprocess.run([onyx, "run", model_file, "--input", f"{inp.name}={pb}", "--output-dir", out,
                                    "--opt-level", level, "--threads", str(threads)], check=True, capture_output=True)
                    for i, o in enumerate(m.graph.output):
                        got = np.load(os.path.join(out, o.name.replace("/", "_") + ".npy"))  # as onyx names the files
                        want = refs[i].astype(got.dtype)
                        if got.shape == want.shape and got.tobytes() == want.tobytes():
                            verdict = "identical"
                        else:
                            failures += 1
                            differ = int(np.sum(got.view(np.uint8) != want.view(np.uint8)))
                            worst = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))))
                            verdict = f"DIFFER in {differ} bytes, max |diff| {worst:.3g}"
                        print(f"{os.path.basename(model)} level={level} threads={threads} {o.name}: {verdict}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
