#!/usr/bin/python3
"""Runs MODEL in ONNX Runtime 1.30 (tests/quant/ort_reference.mjs) and onyx on one random input, at optimization
levels disabled and all, 1 and 2 threads, and prints whether every output is bit-identical.
usage: check_exact.py ONYX MODEL   (exit 1 when an output differs)"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def main():
    onyx, model = sys.argv[1], sys.argv[2]
    m = onnx.load(model, load_external_data=False)
    inp = m.graph.input[0]
    shape = [d.dim_value or 1 for d in inp.type.tensor_type.shape.dim]
    x = np.random.default_rng(5).uniform(-1, 1, shape).astype(np.float32)
    names = [o.name for o in m.graph.output]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        pb = os.path.join(tmp, "input.pb")
        with open(pb, "wb") as f:
            f.write(numpy_helper.from_array(x, inp.name).SerializeToString())
        for level in ("disabled", "all"):
            ref = os.path.join(tmp, "ort_" + level)
            subprocess.run(["node", os.path.join(ROOT, "tests", "quant", "ort_reference.mjs"), model, pb, ref, level,
                            "1"], check=True, stdout=subprocess.DEVNULL)
            want = []
            for i in range(len(names)):
                t = onnx.TensorProto()
                with open(os.path.join(ref, "output_%d.pb" % i), "rb") as f:
                    t.ParseFromString(f.read())
                want.append(numpy_helper.to_array(t))
            for threads in (1, 2):
                out = os.path.join(tmp, "onyx_%s_%d" % (level, threads))
                subprocess.run([onyx, "run", model, "--input", inp.name + "=" + pb, "--opt-level", level, "--threads",
                                str(threads), "--output-dir", out], check=True, stdout=subprocess.DEVNULL)
                got = [np.load(os.path.join(out, n + ".npy")) for n in names]
                same = all(g.tobytes() == w.tobytes() and g.shape == w.shape for g, w in zip(got, want))
                bad += not same
                print("%-40s %-8s %d thread(s): %s" % (os.path.basename(model), level, threads,
                                                      "bit-identical to ONNX Runtime" if same else "DIFFERS"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
