"""SessionOptions.add_session_config_entry("session.ort_summation_order", "0"|"1") and the default at
ORT_DISABLE_ALL: float sums in ONNX Runtime's order, against ONNX Runtime 1.30's outputs of the Softmax case of
tests/data/ort_order (made with MLAS's AVX-512F kernels)."""
import os

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import onyx

CASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "ort_order", "softmax")


def _avx512():
    with open("/proc/cpuinfo") as f:
        return " avx512f" in f.read() and os.environ.get("ONYX_MAX_ISA", "").lower() != "avx2"


def _tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def _identical(level, setting=None):
    model = os.path.join(CASE, "model.onnx")
    so = onyx.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = level
    if setting is not None:
        so.add_session_config_entry("session.ort_summation_order", setting)
    s = onyx.InferenceSession(model, so)
    x = _tensor(os.path.join(CASE, "test_data_set_0", "input_0.pb"))
    got = s.run(None, {s.get_inputs()[0].name: x})
    want = [_tensor(os.path.join(CASE, "test_data_set_0", f"output_{i}.pb")) for i in range(len(got))]
    return [g.tobytes() == w.astype(g.dtype).tobytes() for g, w in zip(got, want)]


@pytest.mark.skipif(not _avx512(), reason="the references hold MLAS's AVX-512F sums")
def test_default_at_disable_all_and_switch_at_enable_all():
    assert all(_identical(onyx.GraphOptimizationLevel.ORT_DISABLE_ALL))
    assert all(_identical(onyx.GraphOptimizationLevel.ORT_ENABLE_ALL, "1"))
    assert not all(_identical(onyx.GraphOptimizationLevel.ORT_DISABLE_ALL, "0"))


def test_bad_value_and_other_entries():
    so = onyx.SessionOptions()
    with pytest.raises(ValueError):
        so.add_session_config_entry("session.ort_summation_order", "yes")
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    assert so.get_session_config_entry("session.intra_op.allow_spinning") == "0"
