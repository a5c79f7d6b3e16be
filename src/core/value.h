// Value: what flows along a graph edge at run time: a tensor, a sequence of values, a map, or an empty optional.
#pragma once

#include <variant>
#include <vector>

#include "core/tensor.h"

namespace onyx {

class Value;

struct SequenceValue {
  DataType elem_type = DataType::kUndefined;  // element type of tensors in the sequence (for empty ones)
  std::vector<Value> items;
};

struct MapValue {
  Tensor keys;    // 1-D, int64 or string
  Tensor values;  // 1-D, same length
};

struct NoneValue {};  // an optional without a value

class Value {
 public:
  Value() = default;
  Value(Tensor t) : v_(std::move(t)) {}          // NOLINT: implicit by design
  Value(SequenceValue s) : v_(std::move(s)) {}   // NOLINT
  Value(MapValue m) : v_(std::move(m)) {}        // NOLINT
  static Value None() { return Value(NoneValue{}); }

  bool empty() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }
  bool is_sequence() const { return std::holds_alternative<SequenceValue>(v_); }
  bool is_map() const { return std::holds_alternative<MapValue>(v_); }
  bool is_none() const { return std::holds_alternative<NoneValue>(v_); }

  const Tensor& tensor() const { return std::get<Tensor>(v_); }
  Tensor& tensor() { return std::get<Tensor>(v_); }
  const SequenceValue& sequence() const { return std::get<SequenceValue>(v_); }
  SequenceValue& sequence() { return std::get<SequenceValue>(v_); }
  const MapValue& map() const { return std::get<MapValue>(v_); }

  std::string KindName() const;

 private:
  explicit Value(NoneValue n) : v_(n) {}
  std::variant<std::monostate, Tensor, SequenceValue, MapValue, NoneValue> v_;
};

inline std::string Value::KindName() const {
  if (is_tensor()) return "tensor";
  if (is_sequence()) return "sequence";
  if (is_map()) return "map";
  if (is_none()) return "none";
  return "empty";
}

}  // namespace onyx
