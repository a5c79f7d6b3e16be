"""onyx: load, check and run ONNX models from Python.

A drop-in for onnxruntime's Python API (change ``import onnxruntime as ort`` to ``import onyx as ort``) plus
model utilities and an ``onnx.backend`` implementation (``onyx.backend``).
"""
from ._onyx import InvalidArgument, NodeArg, NotImplemented, OnyxError  # noqa: F401
from .model import check, convert, load, parse_text, save, to_text  # noqa: F401
from .session import (  # noqa: F401
    ExecutionMode,
    GraphOptimizationLevel,
    InferenceSession,
    ModelMetadata,
    RunOptions,
    SessionOptions,
    get_available_providers,
    get_device,
)

__version__ = "0.1.0"
