// The model argument of `onyx run`, `bench`, `compare`, `serve`, `info`, `print` and `visualize`: an ONNX file is
// loaded; a Keras, TensorFlow or TFLite file (.keras, .h5, .hdf5, model.json, .pb, .tflite) or a TensorFlow
// SavedModel directory (its serving_default signature) is converted to ONNX first (opset 17, the converters'
// defaults), so that e.g. `onyx compare model.tflite model.onnx` checks a
// conversion done elsewhere and `onyx visualize model.tflite -o graph.svg` draws what the conversion gives.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "ir/model.h"
#include "runtime/session.h"

namespace onyx::cli {

Result<std::unique_ptr<Session>> OpenModel(const std::string& path, const SessionOptions& options);
Result<ir::Model> LoadAnyModel(const std::string& path);

}  // namespace onyx::cli
