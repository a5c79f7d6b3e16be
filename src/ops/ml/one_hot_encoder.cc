// OneHotEncoder: each element of X becomes a row of zeros with a 1 at its category's position; Y has X's shape
// plus a last dimension of the category count (float). Strings look up cats_strings; int64, int32, float and
// double look up cats_int64s, floating point values being truncated to integers first (as onnxruntime casts them;
// NaN and infinities match nothing). An element in no category gives a row of zeros, or an error when zeros is 0.
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/ml/ml_common.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::ml {
namespace {

class OneHotEncoderKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const auto ints = info.GetInts("cats_int64s");
    const auto strings = info.GetStrings("cats_strings");
    if (ints.empty() == strings.empty()) {
      return info.Error("exactly one of 'cats_int64s' and 'cats_strings' must be given (and non-empty)");
    }
    for (size_t i = 0; i < ints.size(); ++i) int_cats_.emplace(ints[i], static_cast<int64_t>(i));
    for (size_t i = 0; i < strings.size(); ++i) string_cats_.emplace(strings[i], static_cast<int64_t>(i));
    count_ = static_cast<int64_t>(ints.empty() ? strings.size() : ints.size());
    zeros_ = info.GetInt("zeros", 1) != 0;
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const bool strings = x->type() == DataType::kString;
    if (strings == string_cats_.empty()) {
      return InvalidArgument("input 'X' (0) has element type " + std::string(DataTypeName(x->type())) + ", but the " +
                             (string_cats_.empty() ? "categories are integers" : "categories are strings"));
    }
    if (!strings && x->type() != DataType::kInt64 && x->type() != DataType::kInt32 &&
        x->type() != DataType::kFloat && x->type() != DataType::kDouble) {
      return InvalidArgument("input 'X' (0) has element type " + std::string(DataTypeName(x->type())) +
                             ", expected string, int64, int32, float or double");
    }
    Shape shape = x->shape();
    shape.push_back(count_);
    Tensor& y = ctx.AllocateOutput(0, DataType::kFloat, shape);
    float* out = y.data<float>();
    std::fill(out, out + y.size(), 0.0f);
    for (int64_t i = 0; i < x->size(); ++i) {
      int64_t cat = -1;
      if (strings) {
        auto it = string_cats_.find(x->data<std::string>()[i]);
        if (it != string_cats_.end()) cat = it->second;
      } else {
        const double v = x->DoubleAt(i);
        if (std::isfinite(v)) {
          const int64_t key = x->type() == DataType::kInt64 ? x->data<int64_t>()[i] : static_cast<int64_t>(v);
          auto it = int_cats_.find(key);
          if (it != int_cats_.end()) cat = it->second;
        }
      }
      if (cat < 0) {
        if (!zeros_) return InvalidArgument("element " + std::to_string(i) + " of input 'X' (0) is in no category (zeros is 0)");
        continue;
      }
      out[i * count_ + cat] = 1.0f;
    }
    return Status::Ok();
  }

 private:
  std::unordered_map<int64_t, int64_t> int_cats_;
  std::unordered_map<std::string, int64_t> string_cats_;
  int64_t count_ = 0;
  bool zeros_ = true;
};

}  // namespace

void RegisterOneHotEncoderOps(KernelRegistry& registry) {
  registry.Add(kMlDomain, "OneHotEncoder", 1, kLatestVersion, MakeFactory<OneHotEncoderKernel>());
}

}  // namespace onyx::ops::ml
