#include "quantize/quantize.h"

#include <algorithm>

#include "format/model_io.h"
#include "quantize/modes.h"
#include "version/opset_converter.h"

namespace onyx::quantize {

Result<ir::Model> AtLeastOpset(const ir::Model& model, int64_t min_opset, QuantizeReport* report) {
  const int64_t opset = model.OpsetVersion("ai.onnx").value_or(0);
  report->opset_from = opset;
  report->opset_to = std::max(opset, min_opset);
  if (opset >= min_opset) return model;
  auto converted = version::ConvertOpset(model, min_opset);
  if (!converted.ok()) {
    return converted.status().WithContext("the model's opset " + std::to_string(opset) + " is below the " +
                                          std::to_string(min_opset) + " this mode needs, and converting it failed");
  }
  return converted;
}

bool Selected(const ir::Node& node, const QuantizeOptions& options, const std::vector<std::string>& defaults) {
  if (!node.domain.empty() && node.domain != "ai.onnx") return false;
  if (std::find(options.exclude.begin(), options.exclude.end(), node.name) != options.exclude.end()) return false;
  const auto& types = options.op_types.empty() ? defaults : options.op_types;
  return std::find(types.begin(), types.end(), node.op_type) != types.end();
}

TensorReport ConstantReport(const std::string& name, const char* kind, const QuantizedTensor& qt) {
  TensorReport r;
  r.name = name;
  r.kind = kind;
  r.type = std::string(DataTypeName(qt.q.type()));
  r.axis = qt.axis;
  r.block_size = qt.block_size;
  const float* s = qt.scale.data<float>();
  r.scales.assign(s, s + qt.scale.size());
  if (qt.zero_point.defined()) {
    for (int64_t i = 0; i < qt.zero_point.size(); ++i)
      r.zero_points.push_back(static_cast<int32_t>(qt.zero_point.IntAt(i)));
  } else {
    r.zero_points.push_back(0);
  }
  r.error = qt.error;
  r.error_measured = true;
  return r;
}

Result<ir::Model> QuantizeModel(const ir::Model& model, const QuantizeOptions& options, QuantizeReport* report) {
  switch (options.mode) {
    case Mode::kDynamic:
      report->mode = "dynamic";
      return QuantizeDynamic(model, options, report);
    case Mode::kStatic:
      report->mode = "static";
      return QuantizeStatic(model, options, report);
    case Mode::kWeightOnly:
      report->mode = "weight-only";
      return QuantizeWeightOnly(model, options, report);
  }
  return InvalidArgument("unknown quantization mode");
}

Result<QuantizeReport> QuantizeFile(const std::string& input, const std::string& output,
                                    const QuantizeOptions& options) {
  ONYX_ASSIGN_OR_RETURN(ir::Model model, format::LoadModel(input));
  QuantizeReport report;
  ONYX_ASSIGN_OR_RETURN(ir::Model quantized, QuantizeModel(model, options, &report));
  // SaveModel writes under temporary names and renames, and puts the weights in external data when the quantized
  // model would pass the 2 GiB protobuf limit (named after `output`, so no temporary name of ours here).
  Status saved = format::SaveModel(quantized, output);
  if (!saved.ok()) return saved.WithContext("'" + output + "'");
  return report;
}

}  // namespace onyx::quantize
