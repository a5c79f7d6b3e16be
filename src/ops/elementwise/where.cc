// Where: out = condition ? X : Y, the three inputs broadcast together; any element type, strings included.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {
namespace {

// The unsigned integer of a type's size: Where selects bit patterns, so a mask replaces the branch per element
// (mispredicted on a random condition) and the loop vectorizes for any element type of 1, 2, 4 or 8 bytes.
template <size_t kBytes>
struct BitsOf;
template <>
struct BitsOf<1> {
  using type = uint8_t;
};
template <>
struct BitsOf<2> {
  using type = uint16_t;
};
template <>
struct BitsOf<4> {
  using type = uint32_t;
};
template <>
struct BitsOf<8> {
  using type = uint64_t;
};

// One row: out[j] = c[j * kC] ? x[j * kX] : y[j * kY], each stride 0 (broadcast along the row) or 1.
template <typename U, int kC, int kX, int kY>
void SelectRow(const bool* c, const U* x, const U* y, U* out, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const U mask = static_cast<U>(U{0} - static_cast<U>(c[j * kC]));
    out[j] = static_cast<U>((x[j * kX] & mask) | (y[j * kY] & static_cast<U>(~mask)));
  }
}

template <typename U>
void SelectRowAnyStrides(const bool* c, int64_t cs, const U* x, int64_t xs, const U* y, int64_t ys, U* out, int64_t n) {
  using Row = void (*)(const bool*, const U*, const U*, U*, int64_t);
  // Indexed by (condition stride, X stride, Y stride) as the bits 4, 2, 1.
  static constexpr Row kRows[8] = {SelectRow<U, 0, 0, 0>, SelectRow<U, 0, 0, 1>, SelectRow<U, 0, 1, 0>,
                                   SelectRow<U, 0, 1, 1>, SelectRow<U, 1, 0, 0>, SelectRow<U, 1, 0, 1>,
                                   SelectRow<U, 1, 1, 0>, SelectRow<U, 1, 1, 1>};
  kRows[(cs ? 4 : 0) | (xs ? 2 : 0) | (ys ? 1 : 0)](c, x, y, out, n);
}

// Where over rows of the output's last axis (each input's stride along it 0 or 1), the rows' starting offsets
// walked like ForEachStrided, on the calling thread.
template <typename T>
void WhereRows(const bool* pc, const T* px, const T* py, T* po, const Shape& out_shape,
               const std::vector<int64_t> (&strides)[3]) {
  using U = typename BitsOf<sizeof(T)>::type;
  const size_t rank = out_shape.size();
  const int64_t n = rank == 0 ? 1 : out_shape[rank - 1];
  const int64_t cs = rank == 0 ? 0 : strides[0][rank - 1], xs = rank == 0 ? 0 : strides[1][rank - 1],
                ys = rank == 0 ? 0 : strides[2][rank - 1];
  const Shape outer(out_shape.begin(), rank == 0 ? out_shape.end() : out_shape.end() - 1);
  std::vector<int64_t> outer_strides[3];
  for (int k = 0; k < 3; ++k) {
    outer_strides[k].assign(strides[k].begin(), rank == 0 ? strides[k].end() : strides[k].end() - 1);
  }
  const auto* ux = reinterpret_cast<const U*>(px);
  const auto* uy = reinterpret_cast<const U*>(py);
  auto* uo = reinterpret_cast<U*>(po);
  ForEachStrided(outer, outer_strides, [&](int64_t row, const int64_t* off) {
    SelectRowAnyStrides<U>(pc + off[0], cs, ux + off[1], xs, uy + off[2], ys, uo + row * n, n);
  });
}

class WhereKernel : public OpKernel {
 public:
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* cond, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(1));
    ONYX_ASSIGN_OR_RETURN(const Tensor* y, ctx.TensorInput(2));
    if (cond->type() != DataType::kBool) {
      return InvalidArgument("input 'condition' (0) has element type " + std::string(DataTypeName(cond->type())) +
                             ", expected bool");
    }
    ONYX_RETURN_IF_ERROR(CheckSameType(*x, *y, "X", "Y"));
    ONYX_ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes({cond->shape(), x->shape(), y->shape()}));
    return Dispatch<AllTypes>(x->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor& out = ctx.AllocateOutput(0, x->type(), out_shape);
      const bool* pc = cond->data<bool>();
      const T* px = x->data<T>();
      const T* py = y->data<T>();
      T* po = out.data<T>();
      std::vector<int64_t> strides[3] = {BroadcastStrides(cond->shape(), out_shape),
                                         BroadcastStrides(x->shape(), out_shape),
                                         BroadcastStrides(y->shape(), out_shape)};
      if constexpr (std::is_trivially_copyable_v<T> &&
                    (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8)) {
        WhereRows<T>(pc, px, py, po, out_shape, strides);
        return Status::Ok();
      }
      ForEachStrided(out_shape, strides,
                     [&](int64_t i, const int64_t* off) { po[i] = pc[off[0]] ? px[off[1]] : py[off[2]]; });
      return Status::Ok();
    });
  }
};

}  // namespace

void RegisterWhereOp(KernelRegistry& registry) {
  registry.Add("", "Where", 9, kLatestVersion, MakeFactory<WhereKernel>());
}

}  // namespace onyx::ops::elementwise
