#!/usr/bin/python3
"""Runs each model of tests/data/quant/*/ in onyx (1 and 2 threads, optimization disabled and all) on
test_data_set_0/input_0.pb and checks every output bit for bit against ONNX Runtime 1.30's values
(tests/quant/ort_reference.mjs) at the same level: test_data_set_0/output_N.pb holds ONNX Runtime's outputs at level
disabled, expected_all/output_N.pb (where present) those at level all, which differ from them where ONNX Runtime fuses
QDQ groups into integer operators. Without expected_all/ both levels are checked against the level-disabled values
(models whose results do not depend on the level, or where onyx leaves the graph unfused: docs/quantization.md).
Bits, not values: -0 against +0 or a different NaN fails too. A folder holding a file `mlas_avx512f` has references
made with MLAS's AVX-512F kernels (Softmax sums in 16 lanes there, 8 on AVX2 CPUs): it is skipped on CPUs without
AVX-512F and under ONYX_MAX_ISA=avx2. A folder holding a file `mlas_avx2_pairs` has references made on a CPU without
VNNI, where MLAS adds uint8 x int8 products in saturating int16 pairs and the saturated sums depend on its pairing:
onyx runs it under ONYX_MAX_ISA=avx2 without ONYX_INT8_EXACT (the same clipping pairs on any AVX2 CPU); skipped on
CPUs without AVX2. A folder holding a file `exact_without_vnni` has results ONNX Runtime computes exactly on CPUs
without VNNI too (ConvInteger): onyx runs it without ONYX_INT8_EXACT as well, in its default mode. A folder holding a
file `references_extended` has its expected_all/ from ONNX Runtime's level extended (the same QDQ fusions as all,
without the NCHWc float kernels of level all that onyx does not restate; the file says which). A folder holding a
file `ort_order_all` has float operators that ONNX Runtime fuses at level all into kernels of other arithmetic: onyx
runs it with `--ort-order on` at every level (its ONNX Runtime fusions, OptimizerOptions::ort_fusions).

usage: tests/quant/check_bit_exact.py ONYX DATA_DIR [LEVELS]   (LEVELS: comma-separated, default disabled,all)
"""
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    onyx, data = sys.argv[1], sys.argv[2]
    levels = sys.argv[3].split(",") if len(sys.argv) > 3 else ["disabled", "all"]
    with open("/proc/cpuinfo") as f:
        cpuinfo = f.read()
    avx512 = " avx512f" in cpuinfo and os.environ.get("ONYX_MAX_ISA", "").lower() != "avx2"
    avx2 = " avx2" in cpuinfo
    failures = checked = 0
    for folder in sorted(glob.glob(os.path.join(data, "*", ""))):
        if os.path.exists(os.path.join(folder, "mlas_avx512f")) and not avx512:
            print("skip %s: references of MLAS's AVX-512F kernels" % os.path.basename(folder.rstrip("/")))
            continue
        env = dict(os.environ)
        if os.path.exists(os.path.join(folder, "mlas_avx2_pairs")):
            if not avx2:
                print("skip %s: references of MLAS's AVX2 pairs, no AVX2 here" % os.path.basename(folder.rstrip("/")))
                continue
            env["ONYX_MAX_ISA"] = "avx2"
            env.pop("ONYX_INT8_EXACT", None)
        if os.path.exists(os.path.join(folder, "exact_without_vnni")):
            env.pop("ONYX_INT8_EXACT", None)
        ort_order = ["--ort-order", "on"] if os.path.exists(os.path.join(folder, "ort_order_all")) else []
        model_file = os.path.join(folder, "model.onnx")
        cases = os.path.join(folder, "test_data_set_0")
        names = [o.name for o in onnx.load(model_file, load_external_data=False).graph.output]
        expected_at = {}
        for level in levels:
            ref = os.path.join(folder, "expected_all")
            if level == "disabled" or not os.path.isdir(ref):
                ref = cases
            expected_at[level] = []
            for i in range(len(names)):
                t = onnx.TensorProto()
                with open(os.path.join(ref, "output_%d.pb" % i), "rb") as f:
                    t.ParseFromString(f.read())
                expected_at[level].append(numpy_helper.to_array(t))
        for threads in (1, 2):
            for level in levels:
                expected = expected_at[level]
                with tempfile.TemporaryDirectory() as out:
                    run = subprocess.run([onyx, "run", model_file, "--input",
                                          "input=" + os.path.join(cases, "input_0.pb"), "--threads", str(threads),
                                          "--opt-level", level, "--output-dir", out] + ort_order,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
                    label = "%s threads=%d opt=%s" % (os.path.basename(folder.rstrip("/")), threads, level)
                    if run.returncode != 0:
                        print("FAIL %s: onyx run failed: %s" % (label, run.stderr.strip()))
                        failures += 1
                        continue
                    bad = []
                    for name, want in zip(names, expected):
                        got = np.load(os.path.join(out, name + ".npy"))
                        if got.dtype != want.dtype or got.shape != want.shape or got.tobytes() != want.tobytes():
                            diff = "type/shape"
                            if got.shape == want.shape and got.dtype == want.dtype:
                                g = np.atleast_1d(got).view(np.uint8).reshape(got.size, -1)
                                w = np.atleast_1d(want).view(np.uint8).reshape(want.size, -1)
                                diff = "%d of %d elements" % (int((g != w).any(axis=1).sum()), want.size)
                            bad.append("%s (%s)" % (name, diff))
                    checked += 1
                    if bad:
                        failures += 1
                        print("FAIL %s: %d of %d outputs differ from ONNX Runtime's, first %s" %
                              (label, len(bad), len(names), ", ".join(bad[:5])))
                    else:
                        print("ok   %s: %d outputs bit-identical" % (label, len(names)))
    print("%d runs, %d failing" % (checked, failures))
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
