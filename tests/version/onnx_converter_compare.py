"""Converts node-test models below opset 17 to 17 with onnx 1.12's own version converter, one case folder per
model under OUT_DIR (test data copied beside it); cases the converter rejects are listed in OUT_DIR/rejected.txt.
usage: onnx_converter_compare.py NODE_DIR OUT_DIR TARGET"""
import glob
import os
import shutil
import sys

import onnx
from onnx import version_converter

node_dir, out_dir, target = sys.argv[1], sys.argv[2], int(sys.argv[3])
rejected = []
for case in sorted(glob.glob(os.path.join(node_dir, "*", "model.onnx"))):
    name = os.path.basename(os.path.dirname(case))
    model = onnx.load(case)
    opsets = [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")]
    if not opsets or opsets[0] >= target:
        continue
    try:
        converted = version_converter.convert_version(model, target)
    except Exception as e:  # the converter raises for operators it has no adapter for
        rejected.append(f"{name}: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
        continue
    dest = os.path.join(out_dir, name)
    os.makedirs(dest)
    onnx.save(converted, os.path.join(dest, "model.onnx"))
    for ds in glob.glob(os.path.join(os.path.dirname(case), "test_data_set_*")):
        shutil.copytree(ds, os.path.join(dest, os.path.basename(ds)))
with open(os.path.join(out_dir, "rejected.txt"), "w") as f:
    f.write("\n".join(rejected) + "\n")
