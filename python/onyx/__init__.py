"""onyx: load, check and run ONNX models from Python.

A drop-in for onnxruntime's Python API (change ``import onnxruntime as ort`` to ``import onyx as ort``) plus
model utilities and an ``onnx.backend`` implementation (``onyx.backend``).
"""
import os as _os

# libgomp (oneDNN's OpenMP runtime) reads its busy-wait count once, when the native module below loads it; its default
# (~3 ms) makes runs at 2+ threads 5-200x slower when another process holds a core, a short one 2-3x slower on a VM
# whose host is busy. onyx's choice (~1 ms of this CPU's wait loop, ~100 us when other tasks run; core/openmp_spin.h) unless the user set GOMP_SPINCOUNT / OMP_WAIT_POLICY or ONYX_OPENMP_SPIN=default.
# No effect when libgomp is already loaded (e.g. torch imported first).
try:
    from ._openmp_spin import spin_count_to_set as _spin_count_to_set
except ImportError:  # a build without the module: libgomp's own policy
    _spin_count = 0
else:
    _spin_count = _spin_count_to_set()
if _spin_count > 0:
    _os.environ["GOMP_SPINCOUNT"] = str(_spin_count)

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


def quantize(model_path, output_path, mode="dynamic", calibration=None, per_channel=False, reduce_range=False,
             activation_type="uint8", calibrate_method="minmax", percentile=99.999, max_samples=0, op_types=None,
             exclude=None, bits=4, block=32, threads=0, prepare=True, bias_correction=True, quant_format="QDQ"):
    """Writes a quantized copy of the model at ``model_path`` to ``output_path`` (as ``onyx quantize`` does) and
    returns the report as a dict: per quantized tensor its scale, zero point and error; for ``mode="static"`` the
    float-vs-quantized agreement of the outputs on the calibration set.

    mode: "dynamic" (MatMul/Gemm/Conv weights int8, activations quantized at run time), "static" (QDQ; needs
    ``calibration``, a folder of test_data_set_N/input_K.pb or .npy samples) or "weight-only" (MatMul weights as
    blockwise int4/int8: ``bits``, ``block``). Static mode folds BatchNormalization, Pad and MatMul + Add first
    (``prepare``) and corrects the biases for the mean error of the int8 weights (``bias_correction``), as
    ``onyx quantize`` does without --no-prepare / --no-bias-correction. ``quant_format`` (static mode, as ONNX
    Runtime's QuantFormat): "QDQ" or "QOperator" (QLinearConv, QLinearMatMul, com.microsoft QLinearAdd, ...)."""
    import json
    import os

    from . import _onyx

    report = _onyx.quantize_model(os.fspath(model_path), os.fspath(output_path), mode,
                                  "" if calibration is None else os.fspath(calibration), bool(per_channel),
                                  bool(reduce_range), activation_type, calibrate_method, float(percentile),
                                  int(max_samples), list(op_types or []), list(exclude or []), int(bits), int(block),
                                  int(threads), bool(prepare), bool(bias_correction), str(quant_format))
    return json.loads(report)
