// HannWindow, HammingWindow, BlackmanWindow: generalized cosine windows of `size` points,
//   w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N),
// with N = size when periodic (the default: the window of size + 1 points without its last one, as used for
// spectral analysis) and N = size - 1 when symmetric. A symmetric window of one point is [1] (the 0/0 of the
// formula taken as its limit, as numpy.hanning(1) does). The output element type is `output_datatype`.
#include <cmath>
#include <numbers>

#include "ops/signal/signal.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::signal_ops {
namespace {

struct CosineCoefficients {
  double a0, a1, a2;
};

class WindowKernel : public OpKernel {
 public:
  explicit WindowKernel(CosineCoefficients c) : coefficients_(c) {}

  Status Init(const KernelInfo& info) override {
    const int64_t periodic = info.GetInt("periodic", 1);
    if (periodic != 0 && periodic != 1) {
      return info.Error("attribute 'periodic' is " + std::to_string(periodic) + ", expected 0 or 1");
    }
    periodic_ = periodic == 1;
    const int64_t dt = info.GetInt("output_datatype", static_cast<int64_t>(DataType::kFloat));
    const Status supported = Dispatch<NumericTypes>(
        IsValidDataType(static_cast<int32_t>(dt)) ? static_cast<DataType>(dt) : DataType::kUndefined,
        [](auto) { return Status::Ok(); });
    if (!supported.ok()) {
      return info.Error("attribute 'output_datatype' is " + std::to_string(dt) + ", expected a numeric element type");
    }
    output_type_ = static_cast<DataType>(dt);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const int64_t size, ScalarIntInput(ctx, 0, "size"));
    if (size < 0) return InvalidArgument("input 'size' (0) is " + std::to_string(size) + ", expected >= 0");
    const int64_t denominator = periodic_ ? size : size - 1;
    return Dispatch<NumericTypes>(output_type_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor& out = ctx.AllocateOutput(0, output_type_, {size});
      T* o = out.data<T>();
      for (int64_t n = 0; n < size; ++n) {
        double v = 1.0;
        if (denominator > 0) {
          const double phase = 2.0 * std::numbers::pi * static_cast<double>(n) / static_cast<double>(denominator);
          v = coefficients_.a0 - coefficients_.a1 * std::cos(phase) + coefficients_.a2 * std::cos(2.0 * phase);
        }
        o[n] = FromDouble<T>(v);
      }
      return Status::Ok();
    });
  }

 private:
  CosineCoefficients coefficients_;
  bool periodic_ = true;
  DataType output_type_ = DataType::kFloat;
};

KernelFactory WindowFactory(CosineCoefficients c) {
  return [c](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
    auto k = std::make_unique<WindowKernel>(c);
    ONYX_RETURN_IF_ERROR(k->Init(info));
    return std::unique_ptr<OpKernel>(std::move(k));
  };
}

}  // namespace

void RegisterWindowOps(KernelRegistry& registry) {
  registry.Add("", "HannWindow", 17, kLatestVersion, WindowFactory({0.5, 0.5, 0.0}));
  // alpha = 25/46, beta = 1 - alpha: the ONNX definition (the classic 0.54/0.46 rounded less).
  registry.Add("", "HammingWindow", 17, kLatestVersion, WindowFactory({25.0 / 46.0, 21.0 / 46.0, 0.0}));
  registry.Add("", "BlackmanWindow", 17, kLatestVersion, WindowFactory({0.42, 0.5, 0.08}));
}

}  // namespace onyx::ops::signal_ops
