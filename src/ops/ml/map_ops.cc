// The operators whose input or output is a map (core/value.h MapValue: parallel 1-D key and value tensors).
//   - ZipMap: each row of X ([N, C] or [C], float) becomes a map from the C class labels to that row's values;
//     the output is a sequence of N maps.
//   - DictVectorizer: a map (or a sequence of maps, one output row each) becomes a [1, V] (or [N, V]) tensor of its
//     values placed at their keys' positions in the vocabulary; absent positions are 0 (or "" for strings) and keys
//     outside the vocabulary are ignored (as onnxruntime does).
//   - CastMap: a map from int64 keys to float or string values becomes a [1, n] tensor ordered by key, cast to
//     float, int64 or string. DENSE keeps every entry; SPARSE writes each value at its key's position in a row of
//     max_map entries, the others being 0 (or "" for strings), and rejects keys outside [0, max_map).
//     Floats become strings as std::to_string writes them ("1.500000", like onnxruntime); strings must parse
//     entirely as numbers; floats cast to int64 by truncation and must be finite and in range.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include "ops/ml/ml_common.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::ml {
namespace {

std::string TypeName(DataType t) { return std::string(DataTypeName(t)); }

Status CheckMap(const MapValue& m, const std::string& what) {
  if (m.keys.size() != m.values.size()) {
    return InvalidArgument(what + " has " + std::to_string(m.keys.size()) + " keys and " +
                           std::to_string(m.values.size()) + " values");
  }
  return Status::Ok();
}

class ZipMapKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const auto ints = info.GetInts("classlabels_int64s");
    const auto strings = info.GetStrings("classlabels_strings");
    if (ints.empty() == strings.empty()) {
      return info.Error("exactly one of 'classlabels_int64s' and 'classlabels_strings' must be given (and non-empty)");
    }
    labels_ = ints.empty() ? Tensor::FromVector<std::string>(strings, {static_cast<int64_t>(strings.size())})
                           : Tensor::FromVector<int64_t>(ints, {static_cast<int64_t>(ints.size())});
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() != DataType::kFloat) {
      return InvalidArgument("input 'X' (0) has element type " + TypeName(x->type()) + ", expected float");
    }
    if (x->rank() != 1 && x->rank() != 2) {
      return InvalidArgument("input 'X' (0) has shape " + ShapeToString(x->shape()) + ", expected [N, C] or [C]");
    }
    const int64_t c = x->dim(x->rank() - 1);
    const int64_t n = x->rank() == 1 ? 1 : x->dim(0);
    if (c != labels_.size()) {
      return InvalidArgument("input 'X' (0) has " + std::to_string(c) + " columns but there are " +
                             std::to_string(labels_.size()) + " class labels");
    }
    SequenceValue seq;
    seq.elem_type = DataType::kFloat;
    for (int64_t i = 0; i < n; ++i) {
      Tensor values = Tensor::Allocate(DataType::kFloat, {c});
      std::copy(x->data<float>() + i * c, x->data<float>() + (i + 1) * c, values.data<float>());
      seq.items.emplace_back(MapValue{labels_, values});
    }
    ctx.SetOutput(0, Value(std::move(seq)));
    return Status::Ok();
  }

 private:
  Tensor labels_;
};

class DictVectorizerKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const auto ints = info.GetInts("int64_vocabulary");
    const auto strings = info.GetStrings("string_vocabulary");
    if (ints.empty() == strings.empty()) {
      return info.Error("exactly one of 'int64_vocabulary' and 'string_vocabulary' must be given (and non-empty)");
    }
    string_keys_ = !strings.empty();
    for (size_t i = 0; i < ints.size(); ++i) int_index_.emplace(ints[i], static_cast<int64_t>(i));
    for (size_t i = 0; i < strings.size(); ++i) string_index_.emplace(strings[i], static_cast<int64_t>(i));
    size_ = static_cast<int64_t>(string_keys_ ? strings.size() : ints.size());
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    if (!ctx.has_input(0)) return InvalidArgument("input 'X' (0) is missing");
    const Value& in = ctx.input_value(0);
    std::vector<const MapValue*> maps;
    if (in.is_map()) {
      maps.push_back(&in.map());
    } else if (in.is_sequence()) {
      for (const Value& v : in.sequence().items) {
        if (!v.is_map()) return InvalidArgument("input 'X' (0) is a sequence holding a " + v.KindName() + ", expected maps");
        maps.push_back(&v.map());
      }
    } else {
      return InvalidArgument("input 'X' (0) is a " + in.KindName() + ", expected a map");
    }
    DataType value_type = maps.empty() ? DataType::kFloat : maps[0]->values.type();
    for (size_t r = 0; r < maps.size(); ++r) {
      const MapValue& m = *maps[r];
      ONYX_RETURN_IF_ERROR(CheckMap(m, "input 'X' (0)"));
      const DataType want = string_keys_ ? DataType::kString : DataType::kInt64;
      if (m.keys.type() != want) {
        return InvalidArgument("input 'X' (0) has " + TypeName(m.keys.type()) + " keys, but the vocabulary holds " +
                               TypeName(want) + " values");
      }
      if (m.values.type() != value_type) {
        return InvalidArgument("the maps of input 'X' (0) have values of different types");
      }
    }
    const int64_t rows = in.is_map() ? 1 : static_cast<int64_t>(maps.size());
    Tensor& y = ctx.AllocateOutput(0, value_type, {rows, size_});
    return Dispatch<TypeList<int64_t, float, double, std::string>>(value_type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = y.data<T>();
      std::fill(out, out + y.size(), T{});
      for (size_t r = 0; r < maps.size(); ++r) {
        const MapValue& m = *maps[r];
        for (int64_t i = 0; i < m.keys.size(); ++i) {
          int64_t pos = -1;
          if (string_keys_) {
            auto it = string_index_.find(m.keys.data<std::string>()[i]);
            if (it != string_index_.end()) pos = it->second;
          } else {
            auto it = int_index_.find(m.keys.data<int64_t>()[i]);
            if (it != int_index_.end()) pos = it->second;
          }
          if (pos >= 0) out[static_cast<int64_t>(r) * size_ + pos] = m.values.data<T>()[i];
        }
      }
      return Status::Ok();
    });
  }

 private:
  bool string_keys_ = false;
  std::unordered_map<int64_t, int64_t> int_index_;
  std::unordered_map<std::string, int64_t> string_index_;
  int64_t size_ = 0;
};

enum class CastTo { kFloat, kString, kInt64 };

// The width of a SPARSE output comes from an attribute alone; cap it so that a hostile value cannot ask for an
// absurd allocation.
constexpr int64_t kMaxSparseWidth = int64_t{1} << 24;

Result<float> ParseFloat(const std::string& s) {
  errno = 0;
  char* end = nullptr;
  const float v = std::strtof(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) return InvalidArgument("map value '" + s + "' is not a number");
  return v;
}

Result<int64_t> ParseInt(const std::string& s) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || end != s.c_str() + s.size() || errno == ERANGE) {
    return InvalidArgument("map value '" + s + "' is not an int64");
  }
  return static_cast<int64_t>(v);
}

class CastMapKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const std::string to = info.GetString("cast_to", "TO_FLOAT");
    if (to == "TO_FLOAT") {
      cast_to_ = CastTo::kFloat;
    } else if (to == "TO_STRING") {
      cast_to_ = CastTo::kString;
    } else if (to == "TO_INT64") {
      cast_to_ = CastTo::kInt64;
    } else {
      return info.Error("attribute 'cast_to' is '" + to + "', expected TO_FLOAT, TO_STRING or TO_INT64");
    }
    const std::string form = info.GetString("map_form", "DENSE");
    if (form != "DENSE" && form != "SPARSE") {
      return info.Error("attribute 'map_form' is '" + form + "', expected DENSE or SPARSE");
    }
    sparse_ = form == "SPARSE";
    max_map_ = info.GetInt("max_map", 1);
    if (sparse_ && (max_map_ < 0 || max_map_ > kMaxSparseWidth)) {
      return info.Error("attribute 'max_map' is " + std::to_string(max_map_) + ", expected 0 to " +
                        std::to_string(kMaxSparseWidth));
    }
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    if (!ctx.has_input(0) || !ctx.input_value(0).is_map()) {
      return InvalidArgument("input 'X' (0) must be a map from int64 to float or string");
    }
    const MapValue& m = ctx.input_value(0).map();
    ONYX_RETURN_IF_ERROR(CheckMap(m, "input 'X' (0)"));
    if (m.keys.type() != DataType::kInt64) {
      return InvalidArgument("input 'X' (0) has " + TypeName(m.keys.type()) + " keys, expected int64");
    }
    const DataType vt = m.values.type();
    if (vt != DataType::kFloat && vt != DataType::kString) {
      return InvalidArgument("input 'X' (0) has " + TypeName(vt) + " values, expected float or string");
    }
    const int64_t count = m.keys.size();
    std::vector<int64_t> order(static_cast<size_t>(count));
    std::iota(order.begin(), order.end(), 0);
    const int64_t* keys = m.keys.data<int64_t>();
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[a] < keys[b]; });
    const int64_t width = sparse_ ? max_map_ : count;
    const DataType out_type = cast_to_ == CastTo::kFloat   ? DataType::kFloat
                              : cast_to_ == CastTo::kInt64 ? DataType::kInt64
                                                           : DataType::kString;
    Tensor& y = ctx.AllocateOutput(0, out_type, {1, width});
    if (out_type == DataType::kString) {
      std::fill(y.data<std::string>(), y.data<std::string>() + width, std::string());
    } else if (out_type == DataType::kFloat) {
      std::fill(y.data<float>(), y.data<float>() + width, 0.0f);
    } else {
      std::fill(y.data<int64_t>(), y.data<int64_t>() + width, int64_t{0});
    }
    for (int64_t j = 0; j < count; ++j) {
      const int64_t e = order[static_cast<size_t>(j)];
      int64_t pos = j;
      if (sparse_) {
        pos = keys[e];
        if (pos < 0 || pos >= max_map_) {
          return InvalidArgument("input 'X' (0) has key " + std::to_string(pos) + ", outside [0, max_map = " +
                                 std::to_string(max_map_) + ")");
        }
      }
      ONYX_RETURN_IF_ERROR(Convert(m.values, e, y, pos));
    }
    return Status::Ok();
  }

 private:
  Status Convert(const Tensor& values, int64_t e, Tensor& y, int64_t pos) const {
    if (values.type() == DataType::kFloat) {
      const float v = values.data<float>()[e];
      switch (cast_to_) {
        case CastTo::kFloat: y.data<float>()[pos] = v; break;
        case CastTo::kString: y.data<std::string>()[pos] = std::to_string(v); break;
        case CastTo::kInt64:
          if (!std::isfinite(v) || v >= 9.2233720368547758e18f || v < -9.2233720368547758e18f) {
            return InvalidArgument("map value " + std::to_string(v) + " does not fit int64");
          }
          y.data<int64_t>()[pos] = static_cast<int64_t>(v);
          break;
      }
      return Status::Ok();
    }
    const std::string& s = values.data<std::string>()[e];
    switch (cast_to_) {
      case CastTo::kFloat: {
        ONYX_ASSIGN_OR_RETURN(y.data<float>()[pos], ParseFloat(s));
        break;
      }
      case CastTo::kString: y.data<std::string>()[pos] = s; break;
      case CastTo::kInt64: {
        ONYX_ASSIGN_OR_RETURN(y.data<int64_t>()[pos], ParseInt(s));
        break;
      }
    }
    return Status::Ok();
  }

  CastTo cast_to_ = CastTo::kFloat;
  bool sparse_ = false;
  int64_t max_map_ = 1;
};

}  // namespace

void RegisterMapOps(KernelRegistry& registry) {
  registry.Add(kMlDomain, "ZipMap", 1, kLatestVersion, MakeFactory<ZipMapKernel>());
  registry.Add(kMlDomain, "DictVectorizer", 1, kLatestVersion, MakeFactory<DictVectorizerKernel>());
  registry.Add(kMlDomain, "CastMap", 1, kLatestVersion, MakeFactory<CastMapKernel>());
}

}  // namespace onyx::ops::ml
