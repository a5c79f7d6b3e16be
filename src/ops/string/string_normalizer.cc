// StringNormalizer: drops the elements of a [C] or [1, C] string tensor that are stop words (compared exactly, or
// after lower-casing both sides when is_case_sensitive is 0), then lower- or upper-cases what is left. When every
// element is dropped the output is one empty string ([1] or [1, 1]), as the operator definition asks.
// Stop words filter whole elements (as onnxruntime does; the numpy reference's splitting on spaces and accent
// stripping are not part of the definition). Casing is locale-independent (see utf8_case.h): the `locale`
// attribute is accepted but only the UTF-8 mappings listed there are applied, which are the same in every locale
// except the Turkic dotted/dotless i.
#include <set>
#include <string>
#include <vector>

#include "ops/string/string_ops.h"
#include "ops/string/utf8_case.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::string_ops {
namespace {

enum class CaseChange { kNone, kLower, kUpper };

class StringNormalizerKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const std::string action = info.GetString("case_change_action", "NONE");
    if (action == "NONE") {
      case_change_ = CaseChange::kNone;
    } else if (action == "LOWER") {
      case_change_ = CaseChange::kLower;
    } else if (action == "UPPER") {
      case_change_ = CaseChange::kUpper;
    } else {
      return info.Error("attribute 'case_change_action' is '" + action + "', expected LOWER, UPPER or NONE");
    }
    case_sensitive_ = info.GetInt("is_case_sensitive", 0) != 0;
    for (const std::string& w : info.GetStrings("stopwords")) {
      stopwords_.insert(case_sensitive_ ? w : Utf8ToLower(w));
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() != DataType::kString) {
      return InvalidArgument("input 'X' (0) has element type " + std::string(DataTypeName(x->type())) +
                             ", expected string");
    }
    if (!(x->rank() == 1 || (x->rank() == 2 && x->dim(0) == 1))) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected [C] or [1, C]");
    }
    std::vector<std::string> kept;
    for (const std::string& s : x->values<std::string>()) {
      if (!stopwords_.empty() && stopwords_.count(case_sensitive_ ? s : Utf8ToLower(s)) != 0) continue;
      switch (case_change_) {
        case CaseChange::kNone: kept.push_back(s); break;
        case CaseChange::kLower: kept.push_back(Utf8ToLower(s)); break;
        case CaseChange::kUpper: kept.push_back(Utf8ToUpper(s)); break;
      }
    }
    if (kept.empty()) kept.emplace_back();
    const auto count = static_cast<int64_t>(kept.size());
    Tensor& out = ctx.AllocateOutput(0, DataType::kString, x->rank() == 1 ? Shape{count} : Shape{1, count});
    std::string* o = out.data<std::string>();
    for (size_t i = 0; i < kept.size(); ++i) o[i] = std::move(kept[i]);
    return Status::Ok();
  }

 private:
  CaseChange case_change_ = CaseChange::kNone;
  bool case_sensitive_ = false;
  std::set<std::string> stopwords_;
};

}  // namespace

void RegisterStringNormalizerOps(KernelRegistry& registry) {
  registry.Add("", "StringNormalizer", 10, kLatestVersion, MakeFactory<StringNormalizerKernel>());
}

}  // namespace onyx::ops::string_ops
