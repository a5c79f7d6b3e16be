"""Model utilities working on paths, bytes and onnx.ModelProto objects alike."""
import os

from . import _onyx


def _as_model(model):
    """Returns an onyx Model from a path, serialized bytes, an onnx.ModelProto or an onyx Model."""
    if isinstance(model, _onyx.Model):
        return model
    if isinstance(model, (bytes, bytearray, memoryview)):
        return _onyx.load_model(bytes(model))
    if isinstance(model, (str, os.PathLike)):
        return _onyx.load_model(os.fspath(model))
    if hasattr(model, "SerializeToString"):  # onnx.ModelProto, without importing onnx
        return _onyx.load_model(model.SerializeToString())
    raise TypeError(f"expected a path, bytes, onnx.ModelProto or onyx.Model, got {type(model).__name__}")


def load(model):
    """Loads a model (path, bytes or onnx.ModelProto); external data is memory-mapped."""
    return _as_model(model)


def save(model, path, external_data_threshold=None):
    """Saves a model; tensors of at least ``external_data_threshold`` bytes go to '<path>.data'."""
    _onyx.save_model(_as_model(model), os.fspath(path), -1 if external_data_threshold is None else external_data_threshold)


def check(model):
    """Validates a model's structure. Returns nothing when valid; raises onyx.InvalidArgument listing every problem."""
    problems = _onyx.check_model(_as_model(model))
    if problems:
        raise _onyx.InvalidArgument("\n".join(problems))


def to_text(model):
    """The model in ONNX's text syntax."""
    return _onyx.to_text(_as_model(model))


def parse_text(text):
    """Parses a model written in ONNX's text syntax."""
    return _onyx.parse_text(text)


def convert(path, opset=17):
    """Converts a Keras (.keras, .h5, TF.js layers model.json), TensorFlow (TF.js graph-model model.json, frozen
    GraphDef .pb) or TensorFlow Lite (.tflite) model to ONNX at default-domain opset ``opset`` (13..21), without
    TensorFlow. Returns an onyx Model: ``save()`` it, run it with ``InferenceSession(model.SerializeToString())``,
    or hand ``model.SerializeToString()`` to ``onnx.load_from_string``."""
    return _onyx.convert_model(os.fspath(path), int(opset))
