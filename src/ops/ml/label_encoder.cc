// LabelEncoder (1, 2, 4) and CategoryMapper: element-wise dictionary look-ups, the output keeping the input's
// shape, with a default for elements that are not keys.
//   - LabelEncoder 1 and CategoryMapper map strings to int64 and int64 to strings, the direction set by the input
//     type (LabelEncoder 1: a string's position in classes_strings, and back).
//   - LabelEncoder 2 maps keys_{strings,int64s,floats} to values_{strings,int64s,floats}; float keys compare bit
//     for bit, as version 2 says (so a NaN key matches that NaN's bits, and -0 is not 0).
//   - LabelEncoder 4 adds keys_tensor / values_tensor / default_tensor (string, int64, int32, int16, float,
//     double); float keys compare by value, except that any NaN matches a NaN key.
// When a key repeats, the last one wins (version 4 says so; the earlier versions are read the same way). A
// default_tensor, when given, wins over the default_* attribute; it must hold one value of the values' type.
#include <bit>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/ml/ml_common.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::ml {
namespace {

using LabelTypes = TypeList<std::string, int64_t, float, double, int32_t, int16_t>;

std::string TypeName(DataType t) { return std::string(DataTypeName(t)); }

// Positions of the keys of one element type.
class KeyIndex {
 public:
  void Build(const Tensor& keys, bool bitwise_floats) {
    type_ = keys.type();
    bitwise_ = bitwise_floats;
    for (int64_t i = 0; i < keys.size(); ++i) Insert(keys, i, i);
  }

  DataType type() const { return type_; }

  // Position of element i of x (same element type as the keys), or -1.
  int64_t Find(const Tensor& x, int64_t i) const {
    switch (type_) {
      case DataType::kString: {
        auto it = strings_.find(x.data<std::string>()[i]);
        return it == strings_.end() ? -1 : it->second;
      }
      case DataType::kFloat:
      case DataType::kDouble: {
        auto it = numbers_.find(FloatKey(x, i));
        return it == numbers_.end() ? -1 : it->second;
      }
      default: {
        auto it = numbers_.find(static_cast<uint64_t>(x.IntAt(i)));
        return it == numbers_.end() ? -1 : it->second;
      }
    }
  }

 private:
  void Insert(const Tensor& keys, int64_t i, int64_t position) {
    switch (type_) {
      case DataType::kString: strings_[keys.data<std::string>()[i]] = position; break;
      case DataType::kFloat:
      case DataType::kDouble: numbers_[FloatKey(keys, i)] = position; break;
      default: numbers_[static_cast<uint64_t>(keys.IntAt(i))] = position; break;
    }
  }

  uint64_t FloatKey(const Tensor& t, int64_t i) const {
    if (bitwise_ && t.type() == DataType::kFloat) return std::bit_cast<uint32_t>(t.data<float>()[i]);
    double v = t.DoubleAt(i);
    if (std::isnan(v)) return 0x7ff8000000000000ULL;
    if (v == 0) v = 0;  // -0 and +0 are one key
    return std::bit_cast<uint64_t>(v);
  }

  DataType type_ = DataType::kUndefined;
  bool bitwise_ = false;
  std::unordered_map<std::string, int64_t> strings_;
  std::unordered_map<uint64_t, int64_t> numbers_;  // integers as themselves, floats as (canonical) bits
};

bool IsLabelType(DataType t) {
  return t == DataType::kString || t == DataType::kInt64 || t == DataType::kFloat || t == DataType::kDouble ||
         t == DataType::kInt32 || t == DataType::kInt16;
}

Tensor Vector1D(const std::vector<std::string>& v) {
  return Tensor::FromVector<std::string>(v, {static_cast<int64_t>(v.size())});
}
Tensor Vector1D(const std::vector<int64_t>& v) { return Tensor::FromVector<int64_t>(v, {static_cast<int64_t>(v.size())}); }
Tensor Vector1D(const std::vector<float>& v) { return Tensor::FromVector<float>(v, {static_cast<int64_t>(v.size())}); }

// The one attribute among `<prefix>_strings`, `<prefix>_int64s`, `<prefix>_floats` and (version 4)
// `<prefix>_tensor`, as a tensor.
Result<Tensor> OneOf(const KernelInfo& info, const std::string& prefix, bool allow_tensor) {
  std::vector<std::string> given;
  for (const char* suffix : {"_strings", "_int64s", "_floats", "_tensor"}) {
    if (info.HasAttribute(prefix + suffix)) given.push_back(prefix + suffix);
  }
  if (given.size() != 1) {
    return info.Error("exactly one of '" + prefix + "_strings', '" + prefix + "_int64s', '" + prefix + "_floats'" +
                      (allow_tensor ? ", '" + prefix + "_tensor'" : std::string()) + " must be given, got " +
                      std::to_string(given.size()));
  }
  const std::string& name = given[0];
  if (name == prefix + "_strings") return Vector1D(info.GetStrings(name));
  if (name == prefix + "_int64s") return Vector1D(info.GetInts(name));
  if (name == prefix + "_floats") return Vector1D(info.GetFloats(name));
  if (!allow_tensor) return info.Error("attribute '" + name + "' needs version 4 of LabelEncoder");
  const Tensor* t = info.GetTensor(name);
  if (t == nullptr) return info.Error("attribute '" + name + "' is not a tensor");
  if (!IsLabelType(t->type())) {
    return info.Error("attribute '" + name + "' has element type " + TypeName(t->type()) +
                      ", expected string, int64, int32, int16, float or double");
  }
  return *t;
}

class LabelEncoderKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const bool v4 = info.since_version() >= 4;
    ONYX_ASSIGN_OR_RETURN(Tensor keys, OneOf(info, "keys", v4));
    ONYX_ASSIGN_OR_RETURN(values_, OneOf(info, "values", v4));
    if (keys.size() != values_.size()) {
      return info.Error("the keys have " + std::to_string(keys.size()) + " entries and the values " +
                        std::to_string(values_.size()) + ", expected as many");
    }
    keys_.Build(keys, !v4);
    const DataType vt = values_.type();
    const Tensor* def = v4 ? info.GetTensor("default_tensor") : nullptr;
    if (def != nullptr) {
      if (def->type() != vt || def->size() != 1) {
        return info.Error("attribute 'default_tensor' is " + TypeName(def->type()) + " " + ShapeToString(def->shape()) +
                          ", expected one " + TypeName(vt) + " value (the type of the values)");
      }
      default_ = *def;
    } else if (vt == DataType::kString) {
      default_ = Tensor::Scalar<std::string>(info.GetString("default_string", "_Unused"));
    } else if (vt == DataType::kFloat || vt == DataType::kDouble) {
      const double d = info.GetFloat("default_float", -0.0f);
      default_ = vt == DataType::kFloat ? Tensor::Scalar<float>(static_cast<float>(d)) : Tensor::Scalar<double>(d);
    } else {
      const int64_t d = info.GetInt("default_int64", -1);
      default_ = vt == DataType::kInt64   ? Tensor::Scalar<int64_t>(d)
                 : vt == DataType::kInt32 ? Tensor::Scalar<int32_t>(static_cast<int32_t>(d))
                                          : Tensor::Scalar<int16_t>(static_cast<int16_t>(d));
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() != keys_.type()) {
      return InvalidArgument("input 'X' (0) has element type " + TypeName(x->type()) + ", but the keys are " +
                             TypeName(keys_.type()));
    }
    Tensor& y = ctx.AllocateOutput(0, values_.type(), x->shape());
    return Dispatch<LabelTypes>(values_.type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* vals = values_.data<T>();
      const T& def = default_.data<T>()[0];
      T* out = y.data<T>();
      for (int64_t i = 0; i < x->size(); ++i) {
        const int64_t k = keys_.Find(*x, i);
        out[i] = k < 0 ? def : vals[k];
      }
      return Status::Ok();
    });
  }

 private:
  KeyIndex keys_;
  Tensor values_;
  Tensor default_;
};

// Strings to int64 and back, the direction set by the input's element type.
class StringIntMapKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    std::vector<std::string> strings;
    std::vector<int64_t> ints;
    if (info.since_version() == 1 && info.op_type() == "LabelEncoder") {
      strings = info.GetStrings("classes_strings");
      for (size_t i = 0; i < strings.size(); ++i) ints.push_back(static_cast<int64_t>(i));
    } else {
      strings = info.GetStrings("cats_strings");
      ints = info.GetInts("cats_int64s");
      if (strings.size() != ints.size()) {
        return info.Error("attributes 'cats_strings' and 'cats_int64s' have " + std::to_string(strings.size()) +
                          " and " + std::to_string(ints.size()) + " values, expected as many");
      }
    }
    for (size_t i = 0; i < strings.size(); ++i) {
      to_int_[strings[i]] = ints[i];
      to_string_[ints[i]] = strings[i];
    }
    default_int_ = info.GetInt("default_int64", -1);
    default_string_ = info.GetString("default_string", "_Unused");
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() == DataType::kString) {
      Tensor& y = ctx.AllocateOutput(0, DataType::kInt64, x->shape());
      for (int64_t i = 0; i < x->size(); ++i) {
        auto it = to_int_.find(x->data<std::string>()[i]);
        y.data<int64_t>()[i] = it == to_int_.end() ? default_int_ : it->second;
      }
      return Status::Ok();
    }
    if (x->type() == DataType::kInt64) {
      Tensor& y = ctx.AllocateOutput(0, DataType::kString, x->shape());
      for (int64_t i = 0; i < x->size(); ++i) {
        auto it = to_string_.find(x->data<int64_t>()[i]);
        y.data<std::string>()[i] = it == to_string_.end() ? default_string_ : it->second;
      }
      return Status::Ok();
    }
    return InvalidArgument("input 'X' (0) has element type " + TypeName(x->type()) + ", expected string or int64");
  }

 private:
  std::unordered_map<std::string, int64_t> to_int_;
  std::unordered_map<int64_t, std::string> to_string_;
  int64_t default_int_ = -1;
  std::string default_string_;
};

}  // namespace

void RegisterLabelEncoderOps(KernelRegistry& registry) {
  registry.Add(kMlDomain, "LabelEncoder", 1, 1, MakeFactory<StringIntMapKernel>());
  registry.Add(kMlDomain, "LabelEncoder", 2, kLatestVersion, MakeFactory<LabelEncoderKernel>());
  registry.Add(kMlDomain, "CategoryMapper", 1, kLatestVersion, MakeFactory<StringIntMapKernel>());
}

}  // namespace onyx::ops::ml
