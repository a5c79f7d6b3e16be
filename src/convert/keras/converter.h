// Keras -> ONNX: converts a Keras model (any of the three file forms, see keras_file.h) into an ir::Model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "convert/keras/keras_file.h"
#include "core/status.h"
#include "ir/model.h"

namespace onyx::convert::keras {

struct ConvertOptions {
  int64_t opset = 17;            // default-domain opset of the result, 13..21
  std::optional<int64_t> batch;  // fixed batch size; nullopt: a symbolic "batch" dimension
  // Inputs and outputs keep Keras's channels-last layout, except these (by graph input / output name), which
  // are channels-first in the ONNX graph ([N, C, spatial...]; rank >= 3), with a Transpose inside.
  std::vector<std::string> inputs_as_nchw;
  std::vector<std::string> outputs_as_nchw;
};

struct ConvertReport {
  int layers = 0;             // Keras layers converted (nested models' layers included)
  int nodes = 0;              // ONNX nodes in the result
  int transposes_before = 0;  // Transpose nodes of the faithful translation
  int transposes_after = 0;   // ... left after the transpose optimizer
};

Result<ir::Model> ConvertKerasModel(const KerasModelFile& file, const ConvertOptions& options,
                                    ConvertReport* report = nullptr);
// Reads and converts `path`.
Result<ir::Model> ConvertKerasFile(const std::string& path, const ConvertOptions& options,
                                   ConvertReport* report = nullptr);

}  // namespace onyx::convert::keras
