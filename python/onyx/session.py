"""onnxruntime's InferenceSession surface over onyx's runtime."""
import enum
import os

from . import _onyx
from .model import _as_model


class GraphOptimizationLevel(enum.IntEnum):
    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_ALL = 99


class ExecutionMode(enum.IntEnum):
    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


class SessionOptions:
    """Settings of a session (names as in onnxruntime.SessionOptions)."""

    def __init__(self):
        self.intra_op_num_threads = 0
        self.inter_op_num_threads = 0
        self.graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
        self.execution_mode = ExecutionMode.ORT_SEQUENTIAL
        self.enable_profiling = False
        self.optimized_model_filepath = ""
        self.log_severity_level = 2
        self.log_verbosity_level = 0
        self.logid = ""
        self._config = {}

    def add_session_config_entry(self, key, value):
        """onnxruntime's session configuration entries. onyx reads "session.ort_summation_order" ("1": float sums
        in ONNX Runtime's order, bit-identical to its unoptimized graph; "0": onyx's own; default: on at
        ORT_DISABLE_ALL only) and keeps the others."""
        if key == ORT_SUMMATION_ORDER and str(value) not in ("0", "1"):
            raise ValueError(f'{key} must be "0" or "1", got {value!r}')
        self._config[str(key)] = str(value)

    def get_session_config_entry(self, key):
        return self._config[str(key)]


ORT_SUMMATION_ORDER = "session.ort_summation_order"


class RunOptions:
    def __init__(self):
        self.log_severity_level = 2
        self.log_verbosity_level = 0
        self.logid = ""
        self.terminate = False


class ModelMetadata:
    def __init__(self, model):
        self.producer_name = model.producer_name
        self.graph_name = model.graph_name
        self.domain = model.domain
        self.description = model.doc_string
        self.graph_description = ""
        self.version = model.model_version
        self.custom_metadata_map = dict(model.metadata_props)


def get_available_providers():
    return ["CPUExecutionProvider"]


def get_device():
    return "CPU"


class InferenceSession:
    """Loads a model and runs it: ``InferenceSession(path_or_bytes, sess_options=None, providers=None)``."""

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None, **kwargs):
        self._options = sess_options or SessionOptions()
        if providers:
            names = [p[0] if isinstance(p, tuple) else p for p in providers]
            unknown = [p for p in names if p != "CPUExecutionProvider"]
            if unknown and "CPUExecutionProvider" not in names:
                raise ValueError(f"onyx runs on the CPU only; unavailable providers: {unknown}")
        model = _as_model(path_or_bytes)
        self._model_path = os.fspath(path_or_bytes) if isinstance(path_or_bytes, (str, os.PathLike)) else None
        # The session optimizes at creation (onnxruntime's levels) and saves the optimized model when asked.
        self._session = _onyx.Session(
            model,
            int(self._options.intra_op_num_threads),
            int(self._options.graph_optimization_level),
            os.fspath(self._options.optimized_model_filepath or ""),
            int(getattr(self._options, "_config", {}).get(ORT_SUMMATION_ORDER, -1)),
        )

    def run(self, output_names, input_feed, run_options=None):
        """Runs the model; ``output_names`` None means every output. Returns a list of numpy arrays (lists for
        sequences, None for empty optionals)."""
        if not isinstance(input_feed, dict):
            raise TypeError("input_feed must be a dict of input name to value")
        return self._session.run(list(output_names) if output_names else None, input_feed)

    def get_inputs(self):
        return self._session.inputs()

    def get_outputs(self):
        return self._session.outputs()

    def get_overridable_initializers(self):
        return self._session.overridable_initializers()

    def get_modelmeta(self):
        return ModelMetadata(self._session.model)

    def get_providers(self):
        return ["CPUExecutionProvider"]

    def get_provider_options(self):
        return {"CPUExecutionProvider": {}}

    def get_session_options(self):
        return self._options

    def end_profiling(self):
        return ""
