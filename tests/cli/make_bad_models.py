#!/usr/bin/python3
"""Writes hostile and broken ONNX models for tests/cli/cli_test.sh into the folder given as argument.

Uses Debian's python3-onnx (1.12) only to build the files; onyx reads them.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def model_with_external(name, location, offset=0, length=16):
    w = TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.extend([4])
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
        e = w.external_data.add()
        e.key, e.value = k, v
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g", [x], [y], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    with open(os.path.join(out, name), "wb") as f:
        f.write(m.SerializeToString())


with open(os.path.join(out, "weights.bin"), "wb") as f:
    f.write(np.arange(4, dtype=np.float32).tobytes())
model_with_external("external_ok.onnx", "weights.bin")
model_with_external("external_absolute.onnx", "/etc/passwd")
model_with_external("external_escape.onnx", "../../../../etc/passwd")
model_with_external("external_missing.onnx", "no_such_file.bin")
model_with_external("external_past_end.onnx", "weights.bin", offset=8, length=16)
os.makedirs(os.path.join(out, "sub"), exist_ok=True)
os.symlink("/etc/passwd", os.path.join(out, "sub", "link.bin")) if not os.path.exists(
    os.path.join(out, "sub", "link.bin")) else None
model_with_external("external_symlink.onnx", "sub/link.bin")

# The other ways out of the folder (CVE-2026-27489 class) and a FIFO that would block a reader for ever.
outside = os.path.join(os.path.dirname(os.path.abspath(out)), "outside_" + os.path.basename(os.path.abspath(out)))
os.makedirs(outside, exist_ok=True)
with open(os.path.join(outside, "secret.bin"), "wb") as f:
    f.write(np.arange(4, dtype=np.float32).tobytes())
def fresh(path):
    if os.path.lexists(path):
        os.remove(path)
    return path
os.link(os.path.join(outside, "secret.bin"), fresh(os.path.join(out, "hard.bin")))
model_with_external("external_hardlink.onnx", "hard.bin")
if os.path.lexists(os.path.join(out, "linkdir")):
    os.remove(os.path.join(out, "linkdir"))
os.symlink(outside, os.path.join(out, "linkdir"))
model_with_external("external_symlinked_folder.onnx", "linkdir/secret.bin")
os.symlink("weights.bin", fresh(os.path.join(out, "inner_link.bin")))
model_with_external("external_inner_symlink.onnx", "inner_link.bin")
os.mkfifo(fresh(os.path.join(out, "fifo.bin")))
model_with_external("external_fifo.onnx", "fifo.bin")
model_with_external("external_folder.onnx", "sub")

# A graph reading a value nothing defines.
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
g = helper.make_graph([helper.make_node("Add", ["x", "ghost"], ["y"])], "g", [x], [y])
with open(os.path.join(out, "undefined_input.onnx"), "wb") as f:
    f.write(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())

# A tensor claiming a huge shape with no data.
t = TensorProto()
t.name = "huge"
t.data_type = TensorProto.FLOAT
t.dims.extend([1 << 40, 1 << 20])
g = helper.make_graph([helper.make_node("Identity", ["huge"], ["y"])], "g", [], [y], [t])
with open(os.path.join(out, "huge_dims.onnx"), "wb") as f:
    f.write(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())

# An operator that does not exist.
g = helper.make_graph([helper.make_node("NoSuchOp", ["x"], ["y"])], "g", [x], [y])
with open(os.path.join(out, "unknown_op.onnx"), "wb") as f:
    f.write(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())
