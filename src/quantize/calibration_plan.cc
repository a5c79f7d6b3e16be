#include "quantize/calibration_plan.h"

#include <algorithm>
#include <optional>

#include "infer/shape_inference.h"

namespace onyx::quantize {

namespace {
constexpr int64_t kUnsizedGroup = 64;
}  // namespace

std::vector<int64_t> ObservedTensorBytes(const ir::Model& model, const std::vector<std::string>& tensors,
                                         const std::vector<std::pair<std::string, Value>>& feeds) {
  std::vector<int64_t> bytes(tensors.size(), -1);
  // Bind the declared inputs to the feeds' concrete types, so that symbolic dims (batch, sequence) get numbers.
  ir::Graph graph = model.graph;  // initializers share their storage: the copy is cheap
  std::vector<std::optional<ir::TypeInfo>> input_types(graph.inputs.size());
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    for (const auto& [name, v] : feeds) {
      if (name != graph.inputs[i].name || !v.is_tensor()) continue;
      std::vector<ir::Dim> dims;
      for (int64_t d : v.tensor().shape()) dims.push_back(ir::Dim::Value(d));
      input_types[i] = ir::TypeInfo::Tensor(v.tensor().type(), std::move(dims));
    }
  }
  infer::InferOptions options;
  options.strict = false;  // an operator inference does not know leaves its outputs unknown; that is all
  auto types = infer::InferGraphShapes(graph, model.opset_import, model.functions, options, input_types);
  if (!types.ok()) return bytes;
  for (size_t k = 0; k < tensors.size(); ++k) {
    auto it = types->values.find(tensors[k]);
    if (it == types->values.end() || !it->second.is_tensor() || !it->second.shape ||
        it->second.elem_type == DataType::kUndefined) {
      continue;
    }
    size_t count = 1;
    bool known = true;
    for (const ir::Dim& d : *it->second.shape) {
      known = known && d.is_value() && d.value >= 0;
      if (known) count *= static_cast<size_t>(d.value);
    }
    if (known) bytes[k] = static_cast<int64_t>(DataTypeStorageBytes(it->second.elem_type, count));
  }
  return bytes;
}

CalibrationGroups GroupObservedTensors(const std::vector<std::string>& tensors, const std::vector<int64_t>& bytes,
                                       int64_t max_bytes, int64_t max_count) {
  CalibrationGroups out;
  int64_t largest_known = 0;
  for (int64_t b : bytes) largest_known = std::max(largest_known, b);
  // Nothing sized (inference failed): the former fixed batches of 64, which kept big models in bounds.
  if (largest_known == 0 && max_bytes > 0 && std::find(bytes.begin(), bytes.end(), -1) != bytes.end()) {
    max_count = max_count > 0 ? std::min<int64_t>(max_count, kUnsizedGroup) : kUnsizedGroup;
  }
  int64_t group_bytes = 0;
  for (size_t k = 0; k < tensors.size(); ++k) {
    int64_t b = k < bytes.size() ? bytes[k] : -1;
    if (b < 0) {
      ++out.unknown_sizes;
      b = largest_known;
    }
    const bool full =
        !out.groups.empty() && ((max_bytes > 0 && group_bytes + b > max_bytes) ||
                                (max_count > 0 && static_cast<int64_t>(out.groups.back().size()) >= max_count));
    if (out.groups.empty() || full) {
      out.groups.emplace_back();
      group_bytes = 0;
    }
    out.groups.back().push_back(tensors[k]);
    group_bytes += b;
    out.largest_group_bytes = std::max(out.largest_group_bytes, group_bytes);
  }
  return out;
}

}  // namespace onyx::quantize
