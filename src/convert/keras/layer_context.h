// What layer converters see: the tensors flowing between Keras layers (ONNX value + Keras shape), the layer's
// config and weights, and the shared conversion state (graph builder, options).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "convert/common/graph_builder.h"
#include "convert/keras/converter.h"
#include "convert/keras/keras_file.h"
#include "core/status.h"

namespace onyx::convert::keras {

// A Keras tensor: its ONNX value (always in Keras's own channels-last layout) and its Keras shape, batch first,
// -1 for dimensions unknown until run time.
struct KTensor {
  KTensor() = default;
  KTensor(std::string v, std::vector<int64_t> s, DataType t = DataType::kFloat)
      : value(std::move(v)), shape(std::move(s)), type(t) {}

  std::string value;
  std::vector<int64_t> shape;
  DataType type = DataType::kFloat;
  // The Keras mask carried with this tensor (attached by Masking or Embedding(mask_zero=True) and passed on by
  // the layers that keep it): a bool ONNX value of shape [batch, time], and the layer that attached it. Empty
  // when the tensor has no mask.
  std::string mask;
  std::string mask_origin;
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
};

struct Context {
  GraphBuilder& b;
  const KerasModelFile& file;
  const ConvertOptions& options;
  int layers_converted = 0;
};

struct LayerCall {
  std::string class_name;
  std::string name;
  const nlohmann::json& config;                        // the layer's "config" object
  std::vector<KTensor> inputs;                         // positional tensor inputs
  std::map<std::string, std::vector<KTensor>> kwargs;  // tensor keyword arguments (initial_state, value, key)
  const std::vector<Weight>* weights;                  // the layer's weights in Keras order (never null; may be empty)
  const nlohmann::json& options;                       // non-tensor call arguments ({"use_causal_mask": true})

  // "layer 'conv1' (Conv2D)": the prefix of every error about this layer.
  std::string Where() const { return "layer '" + name + "' (" + class_name + ")"; }
  // Weight i as float32, with an error naming the layer when missing.
  Result<Tensor> WeightAt(size_t i, const std::string& what) const;
};

using LayerFn = Result<std::vector<KTensor>> (*)(Context&, const LayerCall&);
using LayerTable = std::map<std::string, LayerFn>;

// The converter of a Keras class name, or null when unsupported.
LayerFn FindLayerConverter(const std::string& class_name);

// Each family registers its layers.
void RegisterCoreLayers(LayerTable& t);
void RegisterConvLayers(LayerTable& t);
void RegisterPoolingLayers(LayerTable& t);
void RegisterNormalizationLayers(LayerTable& t);
void RegisterMergeLayers(LayerTable& t);
void RegisterReshapingLayers(LayerTable& t);
void RegisterActivationLayers(LayerTable& t);
void RegisterRecurrentLayers(LayerTable& t);
void RegisterAttentionLayers(LayerTable& t);

// Applies a Keras activation ("relu", "hard_sigmoid", "hardSigmoid", ...) to x.
Result<KTensor> ApplyActivation(Context& ctx, const std::string& activation, const KTensor& x,
                                const std::string& node_name);
// The activation named by config[key] ("linear" when absent).
Result<std::string> ActivationName(const nlohmann::json& config, const std::string& key, const std::string& where);

// Masks (see KTensor::mask). An error for a layer that would use the mask of `x` in a way not converted, so
// that a model is never converted into one that silently ignores the mask.
Status MaskNotConvertible(const LayerCall& c, const KTensor& x, const std::string& why);
// x [N, T, F] with its unmasked steps moved to the front in order (a stable partition by the mask); `*lengths`
// gets the int32 [N] count of unmasked steps. A recurrent layer run over that with sequence_lens = lengths ends
// in the state Keras's masked run ends in (Keras carries the state unchanged over masked steps).
std::string CompactMaskedSteps(Context& ctx, const KTensor& x, const std::string& node_name, std::string* lengths);

// Channels-last <-> channels-first around channels-first ONNX ops.
std::string ToChannelsFirstValue(Context& ctx, const KTensor& x, const std::string& node_name);
std::string ToChannelsLastValue(Context& ctx, const std::string& value, int64_t rank, const std::string& node_name);

}  // namespace onyx::convert::keras
