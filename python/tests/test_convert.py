"""onyx.convert from Python: framework models of ../shared/models become ONNX models that onyx and onnx accept and
that reproduce the framework's reference outputs."""
import os

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import onyx
from conftest import SHARED_DIR

MODELS = os.path.join(SHARED_DIR, "models")


def load_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


CASES = [
    ("tfjs/graph/nsfwjs_mobilenet_v2_mid/model.json", "tfjs/testdata/nsfwjs_mobilenet_v2_mid"),
    ("tf/human_selfie_frozen.pb", "tf/testdata/human_selfie_frozen"),
    ("tfjs/layers/nsfwjs_mobilenet_v2/model.json", "tfjs/testdata/nsfwjs_mobilenet_v2"),
]


@pytest.mark.parametrize("model,data", CASES, ids=[c[0].split("/")[-2] for c in CASES])
def test_converted_model_reproduces_reference(model, data):
    path = os.path.join(MODELS, model)
    if not os.path.exists(path):
        pytest.skip(f"{path} is not here")
    converted = onyx.convert(path, opset=17)
    proto = onnx.load_from_string(converted.SerializeToString())  # onnx accepts the bytes
    assert proto.opset_import[0].version == 17
    sess = onyx.InferenceSession(converted.SerializeToString())
    x = load_pb(os.path.join(MODELS, data, "test_data_set_0", "input_0.pb"))
    expected = load_pb(os.path.join(MODELS, data, "test_data_set_0", "output_0.pb"))
    got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_convert_errors_are_python_exceptions(tmp_path):
    bad = tmp_path / "model.tflite"
    bad.write_bytes(b"not a flatbuffer")
    with pytest.raises(onyx.InvalidArgument, match="TFL3"):
        onyx.convert(bad)
    with pytest.raises(onyx.OnyxError):
        onyx.convert(tmp_path / "missing.pb")
