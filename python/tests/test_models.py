"""An onyx.InferenceSession on each real model of ../shared/models/onnx gives its reference outputs, and the
onnxruntime-style surface (get_inputs, get_outputs, run, errors) behaves like onnxruntime's."""
import glob
import os

import numpy as np
import pytest
from onnx import numpy_helper
import onnx

import onyx
from conftest import SHARED_DIR, SOURCE_DIR

MODELS_DIR = os.path.join(SHARED_DIR, "models", "onnx")
EXPECTED_FAILURES = set()
with open(os.path.join(SOURCE_DIR, "tests", "conformance", "real-models.txt")) as f:
    for line in f:
        name = line.split("#", 1)[0].strip()
        if name:
            EXPECTED_FAILURES.add(name.split("/", 1)[1])


def model_cases():
    cases = [(os.path.join(SOURCE_DIR, "models", "blazeface", "model.onnx"),
              os.path.join(SOURCE_DIR, "models", "blazeface", "test_data_set_0"))]
    for path in sorted(glob.glob(os.path.join(MODELS_DIR, "*.onnx"))):
        name = os.path.splitext(os.path.basename(path))[0]
        cases.append((path, os.path.join(MODELS_DIR, "testdata", name, "test_data_set_0")))
    return cases


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


@pytest.mark.parametrize("model_path,data_dir", model_cases(), ids=lambda p: os.path.basename(p))
def test_reference_outputs(model_path, data_dir):
    name = os.path.splitext(os.path.basename(model_path))[0]
    if name in EXPECTED_FAILURES:
        pytest.skip("listed in tests/conformance/real-models.txt")
    sess = onyx.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    inputs = sess.get_inputs()
    feed = {}
    for i, arg in enumerate(inputs):
        feed[arg.name] = load_pb(os.path.join(data_dir, f"input_{i}.pb"))
    outputs = sess.run(None, feed)
    assert len(outputs) == len(sess.get_outputs())
    for i, out in enumerate(outputs):
        expected = load_pb(os.path.join(data_dir, f"output_{i}.pb"))
        assert out.dtype == expected.dtype
        # Real models sum many terms: ONNX Runtime's onnx_test_runner tolerance (atol 1e-5, rtol 1e-3).
        np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-5)


def test_session_surface():
    path = os.path.join(SOURCE_DIR, "models", "blazeface", "model.onnx")
    opts = onyx.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.graph_optimization_level = onyx.GraphOptimizationLevel.ORT_DISABLE_ALL
    with open(path, "rb") as f:
        sess = onyx.InferenceSession(f.read(), sess_options=opts)
    (inp,) = sess.get_inputs()
    assert inp.name == "input:0"
    assert inp.type == "tensor(float)"
    assert inp.shape == [1, 128, 128, 3]
    assert [o.name for o in sess.get_outputs()] == ["Identity:0", "Identity_1:0", "Identity_2:0", "Identity_3:0"]
    assert sess.get_providers() == ["CPUExecutionProvider"]
    assert sess.get_modelmeta().producer_name
    x = np.zeros((1, 128, 128, 3), np.float32)
    (scores,) = sess.run(["Identity:0"], {"input:0": x})
    assert scores.shape == (1, 512, 1)
    with pytest.raises(onyx.InvalidArgument, match="expects tensor\\(float\\), got tensor\\(double\\)"):
        sess.run(None, {"input:0": x.astype(np.float64)})
    with pytest.raises(onyx.OnyxError, match="not an input"):
        sess.run(None, {"nope": x})
    with pytest.raises(onyx.OnyxError):
        onyx.InferenceSession(b"not a model")


def test_model_utilities(tmp_path):
    text = """
    <ir_version: 8, opset_import: ["" : 15]>
    agraph (float[N] x, string[2] s) => (float[N] y, string[2] t, int64[2] shape) {
        y = Relu(x)
        t = Identity(s)
        axes = Constant<value = int64[1] {0}>()
        y2 = Unsqueeze(y, axes)
        shape = Shape(y2)
    }
    """
    model = onyx.parse_text(text)
    onyx.check(model)
    assert "Relu" in onyx.to_text(model)
    path = tmp_path / "m.onnx"
    onyx.save(model, path)
    proto = onnx.load(str(path))
    onnx.checker.check_model(proto)
    for source in (str(path), path.read_bytes(), proto, model):
        sess = onyx.InferenceSession(source)
        y, t, shape = sess.run(None, {"x": np.array([-1.0, 2.0], np.float32),
                                      "s": np.array(["a", "bc"], dtype=object)})
        np.testing.assert_array_equal(y, [0.0, 2.0])
        assert list(t) == ["a", "bc"]
        np.testing.assert_array_equal(shape, [1, 2])
    assert sess.get_inputs()[0].shape == ["N"]
    bad = onyx.parse_text("""
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[2] x) => (float[2] y) { y = Add(x, ghost) }
    """)
    with pytest.raises(onyx.InvalidArgument, match="ghost"):
        onyx.check(bad)


def test_value_kinds():
    model = onyx.parse_text("""
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[2] h, bool[2] b, seq(float) s) => (float16[2] h2, bool[2] nb, int64 n) {
        h2 = Neg(h)
        nb = Not(b)
        n = SequenceLength(s)
    }
    """)
    sess = onyx.InferenceSession(model)
    h2, nb, n = sess.run(None, {"h": np.array([1.5, -2], np.float16), "b": np.array([True, False]),
                                "s": [np.zeros(2, np.float32), np.ones(3, np.float32)]})
    assert h2.dtype == np.float16 and list(h2) == [-1.5, 2.0]
    assert nb.dtype == np.bool_ and list(nb) == [False, True]
    assert int(n) == 2
