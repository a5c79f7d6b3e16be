// TFLite's LSTM with explicit gates, for what ONNX LSTM cannot express: CIFG (no input gate: i = 1 - f), layer
// normalization of the gates, projection (weights and bias), cell_clip (TFLite clips the cell state, ONNX's clip
// bounds the activations' inputs) and proj_clip. The sequence is unrolled over its static length; the states start
// at zeros (TFLite's variable state tensors at the first invocation: a converted model is one invocation).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "convert/tflite/op_context.h"

namespace onyx::convert::tflite {

// Where one direction's tensors sit among the operator's inputs (TFLite order; each group in gate order i f c o,
// the peepholes i f o): input weights, recurrent weights, peepholes, biases, projection weights (bias at +1), and
// layer-norm coefficients (kNoLayerNorm where the operator has none).
struct LstmLayout {
  static constexpr size_t kNoLayerNorm = static_cast<size_t>(-1);
  size_t input_weights = 1, recurrent_weights = 5, peepholes = 9, biases = 12, projection = 16,
         layer_norm = kNoLayerNorm;
};

struct LstmOptions {
  int8_t activation = 4;  // schema.fbs ActivationFunctionType of the cell input and output (tanh)
  float cell_clip = 0;    // 0: none
  float proj_clip = 0;
};

// Whether this LSTM needs the explicit gates (else ONNX LSTM converts it).
bool NeedsExplicitLstm(const OpContext& c, const LstmLayout& layout, const LstmOptions& options);

// Runs the LSTM over `steps` (the inputs x_t [batch, n_input], in processing order); returns each step's output
// h_t [batch, n_output] in the same order. `tag` names the direction's values.
Result<std::vector<std::string>> ExplicitLstm(OpContext& c, const std::vector<std::string>& steps, int64_t batch,
                                              const LstmLayout& layout, const LstmOptions& options,
                                              const std::string& tag);

}  // namespace onyx::convert::tflite
