#!/usr/bin/python3
"""Bad input never crashes or hangs onyx: mutated models (random bytes flipped, cut or inserted; attributes set to
hostile values such as 2^62, -2^40, NaN; input dims changed) must each end with exit status 0-3 within 20 s.

usage: mutation_test.py ONYX NODE_TEST_DIR [byte_cases] [attribute_cases]   (fixed seeds: reproducible)
NODE_TEST_DIR: ONNX's node tests (test_*/model.onnx), or any folder of model folders (*/model.onnx).
"""
import glob
import os
import random
import subprocess
import sys
import tempfile

onyx, node_dir = sys.argv[1], sys.argv[2]
byte_cases = int(sys.argv[3]) if len(sys.argv) > 3 else 200
attr_cases = int(sys.argv[4]) if len(sys.argv) > 4 else 300
models = sorted(m for m in glob.glob(os.path.join(node_dir, "test_*", "model.onnx")) if "expanded" not in m)
if not models:  # a folder of model folders (tests/data/quant): every */model.onnx
    models = sorted(glob.glob(os.path.join(node_dir, "*", "model.onnx")))
if not models:
    print(f"no models under {node_dir}")
    sys.exit(1)
work = tempfile.mkdtemp(prefix="onyx_fuzz_")
failures = []


def run(path, origin):
    try:
        p = subprocess.run([onyx, "run", path], capture_output=True, timeout=20)
        rc, err = p.returncode, p.stderr.decode(errors="replace").strip()[-200:]
    except subprocess.TimeoutExpired:
        rc, err = "timeout", ""
    if rc not in (0, 1, 2, 3):
        keep = os.path.join(work, f"failure_{len(failures)}.onnx")
        os.replace(path, keep)
        failures.append(f"{origin}: exit {rc} ({keep}) {err}")


rng = random.Random(20261130)
for i in range(byte_cases):
    src = rng.choice(models)
    data = bytearray(open(src, "rb").read())
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(max(1, len(data)))
        op = rng.random()
        if op < 0.5 and data:
            data[at] = rng.randrange(256)
        elif op < 0.7:
            del data[at:at + rng.randint(1, 16)]
        elif op < 0.85:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            data = data[:at]
    path = os.path.join(work, "bytes.onnx")
    open(path, "wb").write(bytes(data))
    run(path, f"bytes of {os.path.basename(os.path.dirname(src))}")

try:
    import onnx
except ImportError:
    onnx = None
    print("python3-onnx missing: attribute mutations skipped")
hostile_ints = [-1, 0, 1, 2, -7, 3, 1 << 20, -(1 << 40), 1 << 62, 5]
hostile_floats = [float("nan"), float("inf"), -1.0, 0.0, 1e30]
for i in range(attr_cases if onnx else 0):
    src = rng.choice(models)
    m = onnx.load(src)
    for node in m.graph.node:
        for a in node.attribute:
            if a.type == onnx.AttributeProto.INT and rng.random() < 0.7:
                a.i = rng.choice(hostile_ints)
            elif a.type == onnx.AttributeProto.INTS and rng.random() < 0.7:
                for k in range(len(a.ints)):
                    a.ints[k] = rng.choice(hostile_ints)
                if rng.random() < 0.3:
                    a.ints.append(rng.choice(hostile_ints))
            elif a.type == onnx.AttributeProto.FLOAT and rng.random() < 0.5:
                a.f = rng.choice(hostile_floats)
    for vi in m.graph.input:
        if vi.type.tensor_type.HasField("shape") and rng.random() < 0.3:
            for d in vi.type.tensor_type.shape.dim:
                if d.HasField("dim_value") and rng.random() < 0.5:
                    d.dim_value = rng.choice([0, 1, 3, 17])
    path = os.path.join(work, "attrs.onnx")
    onnx.save(m, path)
    run(path, f"attributes of {os.path.basename(os.path.dirname(src))}")

for f in failures:
    print("FAIL", f)
total = byte_cases + (attr_cases if onnx else 0)
print(f"{total - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
