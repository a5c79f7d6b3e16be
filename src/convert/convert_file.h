// One entry point for every framework converter: the source format is recognized from the file (a TFLite FlatBuffer,
// a frozen TensorFlow GraphDef, a TF.js graph-model, a Keras model in any of its three forms) or the directory (a
// TensorFlow SavedModel).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "ir/model.h"

namespace onyx::convert {

enum class SourceKind { kKeras, kTfjsGraph, kTfFrozenGraph, kTflite, kSavedModel };
std::string_view SourceKindName(SourceKind kind);  // "Keras", "TF.js graph-model", ...

// Whether `path` names a model of another framework, by its extension (.tflite, .pb, .json, .keras, .h5, .hdf5), or
// is a directory (read as a SavedModel: one without saved_model.pb is then an error that says so).
bool IsConvertibleFile(const std::string& path);

// Which converter reads `path` (one IsConvertibleFile accepts): a directory is a SavedModel; else from the extension
// (.tflite, .pb) and, for JSON, the content (a graph-model's "format").
SourceKind DetectSource(const std::string& path);

// Converts `path` at default-domain opset `opset` (13..21) with each converter's defaults (Keras: symbolic batch,
// channels-last inputs and outputs).
Result<ir::Model> ConvertFile(const std::string& path, int64_t opset);

// The operators a converter handles, sorted: TensorFlow op names (TF.js graph-models, frozen graphs and SavedModels
// share them) or TFLite builtins by their schema.fbs names, custom operators as "CUSTOM(name)".
std::vector<std::string> SupportedTensorflowOperators();
std::vector<std::string> SupportedTfliteOperators();

}  // namespace onyx::convert
