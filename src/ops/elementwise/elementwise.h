// Shared machinery of the elementwise operators: generic unary/binary kernels parameterized by a functor,
// integer arithmetic that wraps instead of overflowing into undefined behaviour, the legacy (opset < 7)
// broadcast rule, and the per-file registration functions that register.cc calls.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>

#include "core/data_type.h"
#include "core/status.h"
#include "core/tensor.h"
#include "ops/common/op_util.h"
#include "runtime/kernel.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::elementwise {

void RegisterUnaryMathOps(KernelRegistry& registry);
void RegisterActivationOps(KernelRegistry& registry);
void RegisterClipOp(KernelRegistry& registry);
void RegisterArithmeticOps(KernelRegistry& registry);
void RegisterPowOp(KernelRegistry& registry);
void RegisterLogicalAndBitwiseOps(KernelRegistry& registry);
void RegisterComparisonOps(KernelRegistry& registry);
void RegisterVariadicOps(KernelRegistry& registry);
void RegisterWhereOp(KernelRegistry& registry);

// ---- Integer arithmetic that wraps modulo 2^bits (signed overflow is undefined behaviour in C++, and the
// small unsigned types promote to int, where uint16 * uint16 can overflow too). Non-integers pass through.

template <typename T>
struct WideUnsignedOf {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <typename T>
using WideUnsigned = typename WideUnsignedOf<T>::type;

template <typename T>
constexpr bool kIsWrappingInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (kIsWrappingInt<T>) {
    return static_cast<T>(static_cast<WideUnsigned<T>>(a) + static_cast<WideUnsigned<T>>(b));
  } else {
    return a + b;
  }
}
template <typename T>
T WrapSub(T a, T b) {
  if constexpr (kIsWrappingInt<T>) {
    return static_cast<T>(static_cast<WideUnsigned<T>>(a) - static_cast<WideUnsigned<T>>(b));
  } else {
    return a - b;
  }
}
template <typename T>
T WrapMul(T a, T b) {
  if constexpr (kIsWrappingInt<T>) {
    return static_cast<T>(static_cast<WideUnsigned<T>>(a) * static_cast<WideUnsigned<T>>(b));
  } else {
    return a * b;
  }
}
template <typename T>
T WrapNeg(T a) {
  if constexpr (kIsWrappingInt<T>) {
    return static_cast<T>(WideUnsigned<T>{0} - static_cast<WideUnsigned<T>>(a));
  } else {
    return -a;
  }
}

// double -> integer without undefined behaviour: NaN gives 0, out-of-range values saturate, others truncate.
template <typename T>
T SaturatingCast(double v) {
  if (std::isnan(v)) return T{0};
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  return static_cast<T>(v);
}

// Converts an element to its computation type (float for the 16-bit floats) without copying other types.
template <typename T>
decltype(auto) ToCompute(const T& v) {
  if constexpr (std::is_same_v<ComputeType<T>, T>) {
    return (v);
  } else {
    return static_cast<ComputeType<T>>(v);
  }
}

// ---- Unary kernels.

// Base for functors without attributes.
struct NoAttributes {
  Status Init(const KernelInfo& /*info*/) { return Status::Ok(); }
};

// A functor's optional float32 array path, `void ApplyFloatArray(const float* in, float* out, int64_t n) const`,
// for the functions kernels/vector_math.h vectorizes: UnaryKernel then hands it each thread's contiguous chunk
// instead of calling operator() per element.
template <typename Fn>
concept HasFloatArrayPath = requires(const Fn& fn, const float* in, float* out, int64_t n) {
  fn.ApplyFloatArray(in, out, n);
};

// A binary functor's optional float32 path, `void ApplyFloatPairs(const float* a, const float* b, int64_t b_step,
// float* out, int64_t n) const` (b_step 0: one b for every a, 1: b as long as a), vectorized in kernels/vector_math.h:
// BinaryKernel hands it each thread's chunk where the inputs line up that way, instead of calling operator() per pair.
template <typename Fn>
concept HasFloatPairPath = requires(const Fn& fn, const float* a, const float* b, float* out, int64_t n) {
  fn.ApplyFloatPairs(a, b, n, out, n);
};

// y = fn(x) elementwise for the element types in List; fn takes and returns ComputeType<T>.
// Fn: default-constructible, `Status Init(const KernelInfo&)`, `template <typename C> C operator()(C) const`,
// optionally ApplyFloatArray (above).
template <typename List, typename Fn>
class UnaryKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override { return fn_.Init(info); }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    return Dispatch<List>(x->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor& y = ctx.AllocateOutput(0, x->type(), x->shape());
      const T* px = x->data<T>();
      T* py = y.data<T>();
      const int64_t n = x->size();
      // Two nested conditions, the outer one not depending on T: a functor without ApplyFloatArray never sees the
      // call (clang checks the non-dependent call in a branch discarded only by a T-dependent condition).
      if constexpr (HasFloatArrayPath<Fn>) {
        if constexpr (std::is_same_v<T, float>) {
          // Vectorized: about a nanosecond per element, so threads pay off only on larger arrays than below.
          ParallelFor(n, 1, [&](int64_t lo, int64_t hi) { fn_.ApplyFloatArray(px + lo, py + lo, hi - lo); });
          return Status::Ok();
        }
      }
      ParallelFor(n, 4, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) py[i] = static_cast<T>(fn_(ToCompute(px[i])));
      });
      return Status::Ok();
    });
  }

 private:
  Fn fn_;
};

template <typename List, typename Fn>
void AddUnary(KernelRegistry& registry, std::string_view op, int first_version, int last_version = kLatestVersion) {
  registry.Add("", op, first_version, last_version, MakeFactory<UnaryKernel<List, Fn>>());
}

// ---- Binary kernels.

// How the two inputs of a binary operator line up. From opset 7 on: numpy multidirectional broadcasting.
// Before: without broadcast=1 the shapes must be equal; with it, B is matched against a contiguous run of A's
// dimensions starting at `axis` (by default B's dimensions align with A's trailing ones), and may have 1s.
class BinaryBroadcast {
 public:
  Status Init(const KernelInfo& info);
  // B as it broadcasts against A (reshaped for the legacy rule) and the output shape.
  Status Resolve(const Tensor& a, const Tensor& b, Tensor* b_view, Shape* out_shape) const;
  // Whether B lines up with A as it is, with A's shape as the output's (equal shapes): Resolve's answer without
  // its copies.
  bool SameShapes(const Tensor& a, const Tensor& b) const { return a.shape() == b.shape(); }
  // Whether B is read as it is (numpy broadcasting, opset 7 on): the output shape depends on the shapes alone.
  bool Multidirectional() const { return !legacy_; }

 private:
  bool legacy_ = false;
  bool broadcast_ = false;
  std::optional<int64_t> axis_;
};

// Both inputs of a binary operator must have one element type.
Status CheckSameType(const Tensor& a, const Tensor& b, const char* name_a = "A", const char* name_b = "B");

// out = fn(a, b) with broadcasting, for the element types in List; inputs share one type.
// Fn: default-constructible, `Status Init(const KernelInfo&)`, `template <typename C> auto operator()(C, C) const`
// (on ComputeType<T>), `static constexpr bool kBoolOutput` (comparisons and logic give bool, others give T) and
// `static constexpr bool kDivides` (integer division: a zero divisor is an error rather than a crash).
template <typename List, typename Fn>
class BinaryKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    ONYX_RETURN_IF_ERROR(broadcast_.Init(info));
    return fn_.Init(info);
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* a, ctx.TensorInput(0));
    ONYX_ASSIGN_OR_RETURN(const Tensor* b, ctx.TensorInput(1));
    ONYX_RETURN_IF_ERROR(CheckSameType(*a, *b));
    // Equal shapes (the common case) need no broadcast view or shape of their own: no allocation but the output's.
    Tensor bv;
    Shape resolved_shape;
    const Tensor* bp = b;
    const Shape* out_shape = &a->shape();
    std::shared_ptr<const BroadcastMemo> memo;
    const bool same = broadcast_.SameShapes(*a, *b);
    if (!same && broadcast_.Multidirectional()) {
      // The output shape of the last shapes broadcast, kept: no allocation per run (Session::Run may be called from
      // several threads).
      {
        std::lock_guard<std::mutex> lock(memo_mutex_);
        if (memo_ != nullptr && memo_->a_shape == a->shape() && memo_->b_shape == b->shape()) memo = memo_;
      }
      if (memo == nullptr) {
        ONYX_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(a->shape(), b->shape()));
        memo = std::make_shared<const BroadcastMemo>(BroadcastMemo{a->shape(), b->shape(), std::move(shape)});
        std::lock_guard<std::mutex> lock(memo_mutex_);
        memo_ = memo;
      }
      out_shape = &memo->out_shape;
    } else if (!same) {
      ONYX_RETURN_IF_ERROR(broadcast_.Resolve(*a, *b, &bv, &resolved_shape));
      bp = &bv;
      out_shape = &resolved_shape;
    }
    return Dispatch<List>(a->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      using Out = std::conditional_t<Fn::kBoolOutput, bool, T>;
      if constexpr (Fn::kDivides && std::is_integral_v<T>) {
        if (NumElements(*out_shape) > 0) {
          const T* pb = bp->data<T>();
          for (int64_t i = 0; i < bp->size(); ++i) {
            if (pb[i] == T{0}) {
              return InvalidArgument("input 'B' (1) has a zero at index " + std::to_string(i) +
                                     ": integer division by zero");
            }
          }
        }
      }
      Tensor& out = ctx.AllocateOutput(0, DataTypeOf<Out>::value, *out_shape);
      // Nested as in UnaryKernel: a functor without ApplyFloatPairs never sees the call.
      if constexpr (HasFloatPairPath<Fn>) {
        if constexpr (std::is_same_v<T, float>) {
          // B as long as A, or one B for all of A, with A's elements in the output's order.
          const int64_t n = a->size();
          if (out.size() == n && (bp->size() == n || bp->size() == 1)) {
            const float* pa = a->data<float>();
            const float* pb = bp->data<float>();
            float* po = out.data<float>();
            const int64_t b_step = bp->size() == 1 ? 0 : 1;
            ParallelFor(n, 1, [&](int64_t lo, int64_t hi) {
              fn_.ApplyFloatPairs(pa + lo, pb + lo * b_step, b_step, po + lo, hi - lo);
            });
            return Status::Ok();
          }
        }
      }
      // Float arithmetic (Fn::kFloatOp) through the vectorized kernels, the same bits as fn_.
      std::optional<kernels::BinaryOp> float_op;
      if constexpr (std::is_same_v<T, float> && requires { Fn::kFloatOp; }) float_op = Fn::kFloatOp;
      BroadcastBinary<T, T, Out>(
          *a, *bp, out, [this](const T& x, const T& y) { return static_cast<Out>(fn_(ToCompute(x), ToCompute(y))); },
          float_op);
      return Status::Ok();
    });
  }

 private:
  struct BroadcastMemo {
    Shape a_shape, b_shape, out_shape;
  };
  BinaryBroadcast broadcast_;
  Fn fn_;
  std::mutex memo_mutex_;  // guards memo_
  std::shared_ptr<const BroadcastMemo> memo_;
};

template <typename List, typename Fn>
void AddBinary(KernelRegistry& registry, std::string_view op, int first_version, int last_version = kLatestVersion) {
  registry.Add("", op, first_version, last_version, MakeFactory<BinaryKernel<List, Fn>>());
}

// Copies `in` into `out`, broadcasting it to out's shape.
template <typename T>
void BroadcastCopy(const Tensor& in, Tensor& out) {
  const T* pi = in.data<T>();
  T* po = out.data<T>();
  std::vector<int64_t> strides[1] = {BroadcastStrides(in.shape(), out.shape())};
  ForEachStrided(out.shape(), strides, [&](int64_t i, const int64_t* off) { po[i] = pi[off[0]]; });
}

}  // namespace onyx::ops::elementwise
