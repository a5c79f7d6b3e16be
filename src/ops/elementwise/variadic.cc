// Operators over any number of inputs, broadcast together: Sum, Mean, Max, Min. (Before opset 8 the inputs had
// to share one shape; broadcasting accepts those models too.) Max and Min propagate NaN, as numpy does.
#include <cmath>

#include "kernels/vector_math.h"
#include "ops/common/parallel.h"
#include "ops/elementwise/elementwise.h"

namespace onyx::ops::elementwise {
namespace {

enum class Variadic { kSum, kMean, kMax, kMin };

template <typename C>
C Combine(Variadic op, C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if ((op == Variadic::kMax || op == Variadic::kMin) && (std::isnan(a) || std::isnan(b))) {
      return std::isnan(a) ? a : b;
    }
  }
  switch (op) {
    case Variadic::kSum:
    case Variadic::kMean:
      return WrapAdd(a, b);
    case Variadic::kMax:
      return a < b ? b : a;
    case Variadic::kMin:
      return b < a ? b : a;
  }
  return a;
}

template <Variadic kOp>
class VariadicKernel : public OpKernel {
 public:
  Status Compute(KernelContext& ctx) override {
    const size_t n = ctx.num_inputs();
    if (n == 0) return InvalidArgument("expected at least one input");
    std::vector<const Tensor*> inputs(n);
    std::vector<Shape> shapes(n);
    for (size_t i = 0; i < n; ++i) {
      ONYX_ASSIGN_OR_RETURN(inputs[i], ctx.TensorInput(i));
      if (inputs[i]->type() != inputs[0]->type()) {
        return InvalidArgument("input " + std::to_string(i) + " has element type " +
                               std::string(DataTypeName(inputs[i]->type())) + ", expected " +
                               std::string(DataTypeName(inputs[0]->type())) + " like input 0");
      }
      shapes[i] = inputs[i]->shape();
    }
    ONYX_ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(shapes));
    return Dispatch<NumericTypes>(inputs[0]->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor& out = ctx.AllocateOutput(0, inputs[0]->type(), out_shape);
      if constexpr (std::is_same_v<T, float> && (kOp == Variadic::kMax || kOp == Variadic::kMin)) {
        // Float inputs of the output's shape: vector_math's select per lane, the same values as Combine.
        bool same_shapes = true;
        for (const Tensor* t : inputs) same_shapes = same_shapes && t->shape() == out_shape;
        if (same_shapes && n >= 2) {
          float* po = out.data<float>();
          ParallelFor(out.size(), 2 * static_cast<int64_t>(n), [&](int64_t lo, int64_t hi) {
            const float* first = inputs[0]->data<float>() + lo;
            for (size_t i = 1; i < n; ++i) {
              const float* b = inputs[i]->data<float>() + lo;
              if constexpr (kOp == Variadic::kMax) {
                kernels::MaxPair(i == 1 ? first : po + lo, b, po + lo, hi - lo);
              } else {
                kernels::MinPair(i == 1 ? first : po + lo, b, po + lo, hi - lo);
              }
            }
          });
          return Status::Ok();
        }
      }
      BroadcastCopy<T>(*inputs[0], out);
      // Float sums through the vectorized additions (the same bits as Combine's).
      std::optional<kernels::BinaryOp> float_op;
      if constexpr (std::is_same_v<T, float> && (kOp == Variadic::kSum || kOp == Variadic::kMean)) {
        float_op = kernels::BinaryOp::kAdd;
      }
      for (size_t i = 1; i < n; ++i) {
        BroadcastBinary<T, T, T>(
            out, *inputs[i], out,
            [](const T& a, const T& b) { return static_cast<T>(Combine(kOp, ToCompute(a), ToCompute(b))); }, float_op);
      }
      if constexpr (kOp == Variadic::kMean) {
        using C = ComputeType<T>;
        T* po = out.data<T>();
        for (int64_t i = 0; i < out.size(); ++i) {
          po[i] = static_cast<T>(static_cast<C>(ToCompute(po[i]) / static_cast<C>(n)));
        }
      }
      return Status::Ok();
    });
  }
};

}  // namespace

void RegisterVariadicOps(KernelRegistry& registry) {
  registry.Add("", "Sum", 1, kLatestVersion, MakeFactory<VariadicKernel<Variadic::kSum>>());
  registry.Add("", "Mean", 1, kLatestVersion, MakeFactory<VariadicKernel<Variadic::kMean>>());
  registry.Add("", "Max", 1, kLatestVersion, MakeFactory<VariadicKernel<Variadic::kMax>>());
  registry.Add("", "Min", 1, kLatestVersion, MakeFactory<VariadicKernel<Variadic::kMin>>());
}

}  // namespace onyx::ops::elementwise
