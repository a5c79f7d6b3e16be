#!/usr/bin/python3
"""A model past the 2 GiB protobuf limit, end to end (issue: large models): its 2.2 GB of weights live in external
data files, one per tensor (as onnx's save_model(..., all_tensors_to_one_file=False) writes them); `onyx convert
--opset`, `onyx run --optimized-model` and Python `onyx.save` must each write a model whose weights go to external
data on their own, that loads again and gives the same outputs as the input model.

The weight files are sparse (only the rows the test reads hold values), so building them costs no disk time; the
writers still stream every byte. usage: large_model_test.py ONYX PYTHON_BUILD_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROWS = [0, 12345, 99999, 140000 - 1]  # the rows Gather reads from every tensor
WIDTH = 1024
TENSOR_ROWS = 140000  # 140000 x 1024 float32 = 573 MB per tensor, 4 tensors = 2.29 GB
COUNT = 4


def build(folder):
    rng = np.random.default_rng(7)
    expected_rows = []
    inits = []
    nodes = []
    for k in range(COUNT):
        name = f"weight_{k}"
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.truncate(TENSOR_ROWS * WIDTH * 4)
            rows = {}
            for r in ROWS:
                v = rng.standard_normal(WIDTH).astype(np.float32)
                f.seek(r * WIDTH * 4)
                f.write(v.tobytes())
                rows[r] = v
        expected_rows.append(rows)
        t = TensorProto()
        t.name = name
        t.data_type = TensorProto.FLOAT
        t.dims.extend([TENSOR_ROWS, WIDTH])
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", name), ("offset", "0"), ("length", str(TENSOR_ROWS * WIDTH * 4))):
            e = t.external_data.add()
            e.key, e.value = key, value
        inits.append(t)
        nodes.append(helper.make_node("Gather", [name, "idx"], [f"g{k}"], axis=0))
    nodes.append(helper.make_node("Sum", [f"g{k}" for k in range(COUNT)], ["y"]))
    graph = helper.make_graph(nodes, "large", [helper.make_tensor_value_info("idx", TensorProto.INT64, [len(ROWS)])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [len(ROWS), WIDTH])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    expected = np.stack([sum(expected_rows[k][r] for k in range(COUNT)) for r in ROWS])
    idx = np.array(ROWS, dtype=np.int64)
    np.save(os.path.join(os.path.dirname(folder), "idx.npy"), idx)
    return expected


def run(onyx, model, folder, tag, extra=()):
    out = os.path.join(folder, f"out_{tag}")
    os.makedirs(out, exist_ok=True)
    subprocess.run([onyx, "run", model, "--input", "idx=" + os.path.join(folder, "idx.npy"), "--output-dir", out,
                    *extra], check=True, stdout=subprocess.DEVNULL)
    return np.load(os.path.join(out, "y.npy"))


def external_files(model_path):
    m = onnx.load(model_path, load_external_data=False)
    return sorted({e.value for t in m.graph.initializer for e in t.external_data if e.key == "location"})


def onnx_written_forms(onyx, base):
    """Models that onnx's own save_model wrote with external data, one file per tensor and all in one file."""
    failures = []
    rng = np.random.default_rng(3)
    w = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal((32,)).astype(np.float32)
    x = rng.standard_normal((2, 64)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["t"]), helper.make_node("Add", ["t", "b"], ["y"])], "mm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 32])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    expected = x @ w + b
    np.save(os.path.join(base, "x.npy"), x)
    for one_file in (False, True):
        folder = os.path.join(base, f"onnx_one_file_{one_file}")
        os.makedirs(folder)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        path = os.path.join(folder, "model.onnx")
        onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=one_file,
                        location="weights.bin" if one_file else None, size_threshold=0)
        files = sorted(os.listdir(folder))
        out = os.path.join(folder, "out")
        r = subprocess.run([onyx, "run", path, "--input", "x=" + os.path.join(base, "x.npy"), "--output-dir", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"onnx-written external data (all_tensors_to_one_file={one_file}, files {files}): "
                            f"{r.stderr.strip()}")
            continue
        y = np.load(os.path.join(out, "y.npy"))
        if not np.allclose(y, expected, rtol=1e-5, atol=1e-5):
            failures.append(f"onnx-written external data (all_tensors_to_one_file={one_file}): wrong outputs")
        print(f"onnx save_model all_tensors_to_one_file={one_file}: files {files}, loaded and ran")
    return failures


def main():
    onyx, pybuild = sys.argv[1], sys.argv[2]
    tmp = os.environ.get("ONYX_LARGE_TMP", tempfile.gettempdir())
    free = shutil.disk_usage(tmp).free
    if free < (12 << 30):  # three 2.3 GB outputs plus room for everything else
        print(f"SKIP: {free >> 30} GiB free in {tmp}, the test writes about 7 GB (set ONYX_LARGE_TMP elsewhere)")
        return 77
    base = tempfile.mkdtemp(prefix="onyx_large_", dir=tmp)
    failures = []
    try:
        failures += onnx_written_forms(onyx, base)
        src = os.path.join(base, "src")
        os.makedirs(src)
        expected = build(src)
        model = os.path.join(src, "model.onnx")
        y = run(onyx, model, base, "input")
        if not np.array_equal(y, expected):
            failures.append("the input model's output differs from the expected rows")

        conv_dir = os.path.join(base, "convert")
        os.makedirs(conv_dir)
        converted = os.path.join(conv_dir, "model19.onnx")
        subprocess.run([onyx, "convert", model, "-o", converted, "--opset", "19", "--quiet"], check=True)
        opt_dir = os.path.join(base, "optimized")
        os.makedirs(opt_dir)
        optimized = os.path.join(opt_dir, "opt.onnx")
        run(onyx, model, base, "optimizing", ["--optimized-model", optimized])
        py_dir = os.path.join(base, "python")
        os.makedirs(py_dir)
        saved = os.path.join(py_dir, "saved.onnx")
        subprocess.run([sys.executable, "-c", "import sys, onyx; onyx.save(onyx.load(sys.argv[1]), sys.argv[2])",
                        model, saved], check=True, env=dict(os.environ, PYTHONPATH=pybuild))

        for tag, path in (("convert --opset 19", converted), ("--optimized-model", optimized),
                          ("onyx.save", saved)):
            size = os.path.getsize(path)
            files = external_files(path)
            print(f"{tag}: {os.path.basename(path)} {size} bytes, external data {files}")
            if size > (64 << 20):
                failures.append(f"{tag}: the .onnx file holds {size} bytes (the weights were not externalized)")
            if not files:
                failures.append(f"{tag}: no external data written")
            got = run(onyx, path, base, tag.split()[0].strip("-").replace(".", "_"))
            if not np.array_equal(got, expected):
                failures.append(f"{tag}: outputs differ from the input model's")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print("large model: %d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
