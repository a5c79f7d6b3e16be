// TensorFlow's Bucketize and MatrixDeterminant (registered from OpTable, see op_context.h): small numeric ops
// with one ONNX form each.
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

// The float list attribute `key` ({"list": {"f": [...]}}; an absent list is empty).
Result<std::vector<float>> FloatList(const OpContext& ctx, const std::string& key) {
  std::vector<float> out;
  if (!ctx.node.Has(key)) return out;
  const nlohmann::json& a = (*ctx.node.attr)[key];
  if (!a.contains("list") || !a["list"].is_object()) {
    return InvalidArgument(ctx.node.Where() + ": attribute '" + key + "' is not a list");
  }
  if (!a["list"].contains("f")) return out;
  for (const auto& v : a["list"]["f"]) {
    if (v.is_number()) {
      out.push_back(v.get<float>());
    } else if (v.is_string()) {  // proto3-JSON writes non-finite floats as "NaN", "Infinity", "-Infinity"
      const std::string s = v.get<std::string>();
      out.push_back(s == "NaN"         ? std::numeric_limits<float>::quiet_NaN()
                    : s == "Infinity"  ? std::numeric_limits<float>::infinity()
                    : s == "-Infinity" ? -std::numeric_limits<float>::infinity()
                                       : std::stof(s));
    } else {
      return InvalidArgument(ctx.node.Where() + ": attribute '" + key + "' holds a non-number");
    }
  }
  return out;
}

// Bucketize(input, boundaries: sorted floats) -> int32: the index of input's bucket, the count of boundaries b
// with !(x < b) (TF's std::upper_bound: a NaN input lands past the last boundary). Integer inputs are compared as
// floats, as TF's comparison of an integer with a float boundary promotes it; double inputs against the
// boundaries widened to double.
Status Bucketize(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  ONYX_ASSIGN_OR_RETURN(std::vector<float> bounds, FloatList(ctx, "boundaries"));
  const int64_t n = static_cast<int64_t>(bounds.size());
  std::string value = x.name;
  std::string boundaries;
  if (x.type == DataType::kDouble) {
    boundaries = ctx.b.Constant(ctx.Name("boundaries"),
                                Tensor::FromVector<double>(std::vector<double>(bounds.begin(), bounds.end()), {n}));
  } else if (x.type == DataType::kFloat || x.type == DataType::kInt32 || x.type == DataType::kInt64) {
    if (x.type != DataType::kFloat) {
      value = ctx.b.Op1("Cast", {x.name}, ctx.Name("as_float"),
                        {ir::IntAttr("to", static_cast<int64_t>(DataType::kFloat))});
    }
    boundaries = ctx.b.Constant(ctx.Name("boundaries"), Tensor::FromVector<float>(bounds, {n}));
  } else {
    return Unsupported(ctx.node.Where() + ": input of element type " + std::string(DataTypeName(x.type)) +
                       " (int32, int64, float32 or float64 expected)");
  }
  const std::string last = ctx.b.ConstInts(ctx.Name("last_axis"), {-1});
  const std::string below = ctx.b.Op1(
      "Less", {ctx.b.Op1("Unsqueeze", {value, last}, ctx.Name("value_column")), boundaries}, ctx.Name("below"));
  const std::string at_or_above =
      ctx.b.Op1("Cast", {ctx.b.Op1("Not", {below}, ctx.Name("at_or_above"))}, ctx.Name("counts"),
                {ir::IntAttr("to", static_cast<int64_t>(DataType::kInt32))});
  ctx.SetOutput(0, ctx.b.Op1("ReduceSum", {at_or_above, last}, ctx.Name(), {ir::IntAttr("keepdims", 0)}),
                DataType::kInt32);
  return Status::Ok();
}

// MatrixDeterminant(input [..., M, M]): ONNX Det (float types; TF's complex inputs are not converted).
Status MatrixDeterminant(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(TfValue x, ctx.Input(0));
  if (x.type != DataType::kFloat && x.type != DataType::kDouble && x.type != DataType::kFloat16) {
    return Unsupported(ctx.node.Where() + ": input of element type " + std::string(DataTypeName(x.type)) +
                       " (float16, float32 or float64 expected)");
  }
  ctx.SetOutput(0, ctx.b.Op1("Det", {x.name}, ctx.Name()), x.type);
  return Status::Ok();
}

}  // namespace

void AddNumericOps(std::map<std::string, OpFn>& t) {
  t["Bucketize"] = Bucketize;
  t["MatrixDeterminant"] = MatrixDeterminant;
}

}  // namespace onyx::convert::tf
