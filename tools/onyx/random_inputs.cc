// Random input values for `onyx run` and `onyx bench`.
#include "random_inputs.h"

namespace onyx::cli {

Value RandomInput(const ir::ValueInfo& in, const std::map<std::string, int64_t>& dims, std::mt19937_64& rng,
                  Status* st) {
  if (!in.type || !in.type->is_tensor()) {
    *st = Unsupported("input '" + in.name + "' is not a tensor: give it with --input");
    return Value();
  }
  Shape shape;
  if (in.type->shape) {
    for (const auto& d : *in.type->shape) {
      if (d.is_value()) {
        shape.push_back(d.value);
      } else {
        auto it = dims.find(d.param);
        shape.push_back(it == dims.end() ? 1 : it->second);
      }
    }
  }
  auto created = Tensor::Create(in.type->elem_type, shape);
  if (!created.ok()) {
    *st = created.status();
    return Value();
  }
  Tensor t = std::move(created).value();
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9);
  *st = Dispatch<AllTypes>(t.type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.size(); ++i) {
      if constexpr (std::is_same_v<T, std::string>) {
        p[i] = std::to_string(small(rng));
      } else if constexpr (std::is_same_v<T, bool>) {
        p[i] = small(rng) >= 5;
      } else if constexpr (std::is_integral_v<T>) {
        p[i] = static_cast<T>(small(rng));
      } else {
        p[i] = FromDouble<T>(unit(rng));
      }
    }
    return Status::Ok();
  });
  return Value(std::move(t));
}

}  // namespace onyx::cli
