"""onnx.backend implementation, so ONNX's own test runner (onnx.backend.test.BackendTest) can drive onyx."""
import numpy as np

from . import _onyx
from .model import _as_model

try:
    from onnx.backend.base import Backend, BackendRep
except ImportError:  # onnx not installed: keep the module importable
    Backend = object
    BackendRep = object


class OnyxRep(BackendRep):
    def __init__(self, session):
        self._session = session
        self._input_names = [i.name for i in session.inputs()]

    def run(self, inputs, **kwargs):
        if isinstance(inputs, dict):
            feed = inputs
        else:
            if isinstance(inputs, np.ndarray) or not isinstance(inputs, (list, tuple)):
                inputs = [inputs]
            feed = dict(zip(self._input_names, inputs))
        return tuple(self._session.run(None, feed))


class OnyxBackend(Backend):
    @classmethod
    def is_compatible(cls, model, device="CPU", **kwargs):
        return cls.supports_device(device)

    @classmethod
    def supports_device(cls, device):
        return str(device).upper().startswith("CPU")

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        if not cls.supports_device(device):
            raise RuntimeError(f"onyx runs on the CPU only, not {device}")
        return OnyxRep(_onyx.Session(_as_model(model), 1))

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        from onnx import helper

        opset = kwargs.get("opset_version")
        feeds = []
        for name, value in zip(node.input, inputs):
            arr = np.asarray(value)
            feeds.append(helper.make_tensor_value_info(name, _tensor_dtype(arr.dtype), arr.shape))
        outs = [helper.make_empty_tensor_value_info(o) for o in node.output]
        graph = helper.make_graph([node], "run_node", feeds, outs)
        imports = [helper.make_opsetid(node.domain or "", opset)] if opset else None
        model = helper.make_model(graph, opset_imports=imports) if imports else helper.make_model(graph)
        return cls.run_model(model, list(inputs), device)


def _tensor_dtype(dtype):
    try:
        from onnx.helper import np_dtype_to_tensor_dtype  # onnx >= 1.13

        return np_dtype_to_tensor_dtype(dtype)
    except ImportError:
        from onnx.mapping import NP_TYPE_TO_TENSOR_TYPE

        return NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]


prepare = OnyxBackend.prepare
run_model = OnyxBackend.run_model
run_node = OnyxBackend.run_node
supports_device = OnyxBackend.supports_device
is_compatible = OnyxBackend.is_compatible
