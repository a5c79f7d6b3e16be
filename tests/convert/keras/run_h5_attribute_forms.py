#!/usr/bin/python3
"""Keras .h5 files as written in the wild: the string attributes (model_config, keras_version, backend,
layer_names, weight_names) stored in each form Keras 1/2, tf.keras and h5py produced -- fixed-length byte strings,
variable-length str and bytes, byte arrays (uint8 rows, opaque np.void), scalars and arrays of each, empty lists as
the empty float64 arrays h5py writes for `attrs[name] = []`, and lists split into name0, name1, ... chunks. Each
variant is rewritten with h5py from corpus models of tests/data/keras (weights copied unchanged), converted with
`onyx convert`, checked, run on the stored input and compared with the stored reference output (TF.js's), with
run_corpus.py's tolerance.

usage: run_h5_attribute_forms.py ONYX_BINARY CORPUS_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

import h5py
import numpy as np

RTOL, ATOL = 1e-4, 1e-5
MODELS = ["conv1d", "dense_activations"]
SCALARS = ("model_config", "keras_version", "backend")
LISTS = ("layer_names", "weight_names")


def encode(value, form, is_list):
    """The attribute value in `form` for a str (scalar) or list of str."""
    if form == "fixed":
        if is_list:
            return np.array([s.encode() for s in value], dtype="S%d" % max([1] + [len(s.encode()) for s in value])) \
                if value else np.array([], dtype=np.float64)  # Keras 2: np.asarray([]) of a layer without weights
        return np.bytes_(value.encode())
    if form == "vlen_str":
        dt = h5py.string_dtype("utf-8")
        return np.array(value, dtype=dt) if is_list else value
    if form == "vlen_bytes":
        dt = h5py.string_dtype("ascii")
        return np.array([s.encode() for s in value], dtype=dt) if is_list else np.array(value.encode(), dtype=dt)
    if form == "uint8":
        if not is_list:
            return np.frombuffer(value.encode(), dtype=np.uint8)
        width = max([1] + [len(s.encode()) for s in value])
        rows = np.zeros((len(value), width), dtype=np.uint8)
        for i, s in enumerate(value):
            rows[i, :len(s.encode())] = np.frombuffer(s.encode(), dtype=np.uint8)
        return rows
    if form == "void":
        if not is_list:
            return np.void(value.encode())
        width = max([1] + [len(s.encode()) for s in value])
        return np.array([s.encode().ljust(width, b"\0") for s in value], dtype="V%d" % width)
    raise ValueError(form)


def rewrite(src, dst, form, chunked):
    with h5py.File(src, "r") as fin, h5py.File(dst, "w") as fout:
        def copy_attrs(obj_in, obj_out):
            for name, value in obj_in.attrs.items():
                if name in SCALARS:
                    v = value.decode() if isinstance(value, bytes) else str(value)
                    obj_out.attrs[name] = encode(v, form, False)
                elif name in LISTS:
                    items = [x.decode() if isinstance(x, bytes) else str(x) for x in value]
                    if chunked and len(items) > 1:
                        half = (len(items) + 1) // 2
                        obj_out.attrs[name + "0"] = encode(items[:half], form, True)
                        obj_out.attrs[name + "1"] = encode(items[half:], form, True)
                    else:
                        obj_out.attrs[name] = encode(items, form, True)
                else:
                    obj_out.attrs[name] = value

        copy_attrs(fin, fout)

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                fout.create_dataset(name, data=obj[()])
            else:
                fout.require_group(name)
            copy_attrs(obj, fout[name])

        fin.visititems(visit)


def attr_classes(path):
    """The HDF5 type classes the file's string attributes use (to show each form is what it claims)."""
    seen = set()
    with h5py.File(path, "r") as f:
        def show(obj):
            for name in obj.attrs:
                if name.rstrip("01") in SCALARS + LISTS:
                    aid = obj.attrs.get_id(name)
                    t = aid.get_type()
                    seen.add((t.get_class(), t.is_variable_str() if t.get_class() == h5py.h5t.STRING else False))
        show(f)
        f.visititems(lambda n, o: show(o))
    return seen


def run(onyx, model, meta, case_dir, work):
    out = os.path.join(work, "model.onnx")
    r = subprocess.run([onyx, "convert", model, "-o", out, "--quiet"], capture_output=True, text=True)
    if r.returncode != 0:
        return "convert failed: " + r.stderr.strip()
    r = subprocess.run([onyx, "check", "--full", out], capture_output=True, text=True)
    if r.returncode != 0:
        return "check failed: " + (r.stdout + r.stderr).strip()[-300:]
    outdir = os.path.join(work, "out")
    cmd = [onyx, "run", out, "--output-dir", outdir, "--threads", "1"]
    for i in meta["inputs"]:
        cmd += ["--input", "%s=%s" % (i["name"], os.path.join(case_dir, i["file"]))]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return "run failed: " + r.stderr.strip()
    import onnx
    names = [o.name for o in onnx.load(out).graph.output]
    if len(names) != len(meta["outputs"]):
        return "%d outputs, the reference has %d" % (len(names), len(meta["outputs"]))
    for name, o in zip(names, meta["outputs"]):
        ref = np.load(os.path.join(case_dir, o["file"]))
        got = np.load(os.path.join(outdir, name + ".npy"))
        if got.shape != ref.shape:
            return "output %s: shape %s, reference %s" % (name, got.shape, ref.shape)
        err = np.abs(got.astype(np.float64) - ref.astype(np.float64))
        if not np.all(err <= ATOL + RTOL * np.abs(ref)):
            return "output %s: max error %.3g" % (name, float(err.max()))
    return None


def main():
    onyx, corpus = sys.argv[1], sys.argv[2]
    failures, cases = [], 0
    with tempfile.TemporaryDirectory() as work:
        for model in MODELS:
            case_dir = os.path.join(corpus, model)
            meta = json.load(open(os.path.join(case_dir, "meta.json")))
            for form in ("fixed", "vlen_str", "vlen_bytes", "uint8", "void"):
                for chunked in (False, True):
                    label = "%s/%s%s" % (model, form, "+chunked" if chunked else "")
                    path = os.path.join(work, "model.h5")
                    rewrite(os.path.join(case_dir, "model.h5"), path, form, chunked)
                    classes = attr_classes(path)
                    cases += 1
                    msg = run(onyx, path, meta, case_dir, work)
                    print("%-40s %s  (HDF5 classes %s)" % (label, "ok" if msg is None else "FAIL: " + msg,
                                                           sorted(classes)))
                    if msg is not None:
                        failures.append(label)
    print("%d/%d attribute-form cases pass" % (cases - len(failures), cases))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
