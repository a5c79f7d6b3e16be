// StringConcat: element-wise X + Y of two string tensors, with numpy broadcasting.
// StringSplit: splits each string of X like Python's str.split: on every occurrence of `delimiter` (consecutive
// delimiters giving empty strings), or, without a delimiter or with an empty one, on runs of whitespace with
// leading and trailing whitespace ignored; at most `maxsplit` splits from the left when it is given (>= 0).
// Outputs the pieces as X.shape + [most pieces of any element], padded with empty strings, and the piece counts.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "ops/common/op_util.h"
#include "ops/string/string_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::string_ops {
namespace {

Status CheckString(const Tensor& t, size_t i, const char* name) {
  if (t.type() == DataType::kString) return Status::Ok();
  return InvalidArgument("input '" + std::string(name) + "' (" + std::to_string(i) + ") has element type " +
                         std::string(DataTypeName(t.type())) + ", expected string");
}

Status StringConcatCompute(const KernelInfo&, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
  ONYX_ASSIGN_OR_RETURN(const Tensor* y, ctx.TensorInput(1));
  ONYX_RETURN_IF_ERROR(CheckString(*x, 0, "X"));
  ONYX_RETURN_IF_ERROR(CheckString(*y, 1, "Y"));
  ONYX_ASSIGN_OR_RETURN(const Shape shape, BroadcastShapes(x->shape(), y->shape()));
  Tensor& out = ctx.AllocateOutput(0, DataType::kString, shape);
  BroadcastBinary<std::string, std::string, std::string>(*x, *y, out,
                                                         [](const std::string& a, const std::string& b) { return a + b; });
  return Status::Ok();
}

// Python's str.isspace for the ASCII range (including the information separators 0x1c-0x1f).
bool IsSpace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f');
}

std::vector<std::string_view> SplitOnWhitespace(std::string_view s, int64_t maxsplit) {
  std::vector<std::string_view> pieces;
  size_t i = 0;
  while (true) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i == s.size()) break;
    if (maxsplit >= 0 && static_cast<int64_t>(pieces.size()) == maxsplit) {
      // The rest, trailing whitespace included, as Python keeps it.
      pieces.push_back(s.substr(i));
      break;
    }
    const size_t start = i;
    while (i < s.size() && !IsSpace(s[i])) ++i;
    pieces.push_back(s.substr(start, i - start));
  }
  return pieces;
}

std::vector<std::string_view> SplitOnDelimiter(std::string_view s, std::string_view delimiter, int64_t maxsplit) {
  std::vector<std::string_view> pieces;
  size_t start = 0;
  while (maxsplit < 0 || static_cast<int64_t>(pieces.size()) < maxsplit) {
    const size_t at = s.find(delimiter, start);
    if (at == std::string_view::npos) break;
    pieces.push_back(s.substr(start, at - start));
    start = at + delimiter.size();
  }
  pieces.push_back(s.substr(start));
  return pieces;
}

class StringSplitKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    delimiter_ = info.GetString("delimiter", "");
    maxsplit_ = info.GetInt("maxsplit", -1);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    ONYX_RETURN_IF_ERROR(CheckString(*x, 0, "X"));
    const std::string* in = x->data<std::string>();
    std::vector<std::vector<std::string_view>> split(static_cast<size_t>(x->size()));
    int64_t widest = 0;
    for (int64_t i = 0; i < x->size(); ++i) {
      auto& pieces = split[static_cast<size_t>(i)];
      pieces = delimiter_.empty() ? SplitOnWhitespace(in[i], maxsplit_) : SplitOnDelimiter(in[i], delimiter_, maxsplit_);
      widest = std::max(widest, static_cast<int64_t>(pieces.size()));
    }
    Shape y_shape = x->shape();
    y_shape.push_back(widest);
    Tensor& y = ctx.AllocateOutput(0, DataType::kString, y_shape);
    std::string* yo = y.data<std::string>();
    for (int64_t i = 0; i < x->size(); ++i) {
      const auto& pieces = split[static_cast<size_t>(i)];
      for (size_t k = 0; k < pieces.size(); ++k) yo[i * widest + static_cast<int64_t>(k)] = std::string(pieces[k]);
    }
    if (ctx.num_outputs() > 1) {
      int64_t* zo = ctx.AllocateOutput(1, DataType::kInt64, x->shape()).data<int64_t>();
      for (int64_t i = 0; i < x->size(); ++i) zo[i] = static_cast<int64_t>(split[static_cast<size_t>(i)].size());
    }
    return Status::Ok();
  }

 private:
  std::string delimiter_;
  int64_t maxsplit_ = -1;
};

}  // namespace

void RegisterStringConcatSplitOps(KernelRegistry& registry) {
  registry.AddFn("", "StringConcat", 20, kLatestVersion, StringConcatCompute);
  registry.Add("", "StringSplit", 20, kLatestVersion, MakeFactory<StringSplitKernel>());
}

}  // namespace onyx::ops::string_ops
