// DFT: the discrete Fourier transform along one axis of a tensor whose last dimension holds a real value (size 1)
// or a (real, imaginary) pair (size 2). Four forms: the full transform, its inverse (scaled by 1/n), the one-sided
// forward transform (RFFT: bins 0..n/2 only) and, with inverse=1 and onesided=1, the inverse of a one-sided
// spectrum (IRFFT: a real signal of dft_length values, the missing bins taken as conjugates).
// Version 17 takes the axis as an attribute (default 1); version 20 takes it as an optional input (default -2).
#include <algorithm>
#include <complex>
#include <vector>

#include "ops/signal/fft.h"
#include "ops/signal/signal.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::signal_ops {
namespace {

class DftKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const int64_t inverse = info.GetInt("inverse", 0), onesided = info.GetInt("onesided", 0);
    if (inverse != 0 && inverse != 1) return info.Error("attribute 'inverse' is " + std::to_string(inverse) + ", expected 0 or 1");
    if (onesided != 0 && onesided != 1) {
      return info.Error("attribute 'onesided' is " + std::to_string(onesided) + ", expected 0 or 1");
    }
    inverse_ = inverse == 1;
    onesided_ = onesided == 1;
    axis_from_input_ = info.since_version() >= 20;
    axis_ = axis_from_input_ ? -2 : info.GetInt("axis", 1);
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const int64_t rank = x->rank();
    if (rank < 2 || (x->dim(rank - 1) != 1 && x->dim(rank - 1) != 2)) {
      return InvalidArgument("input 'input' (0) has shape " + ShapeToString(x->shape()) +
                             ", expected rank >= 2 with a last dimension of 1 (real) or 2 (complex)");
    }
    int64_t axis = axis_;
    if (axis_from_input_ && ctx.has_input(2)) {
      ONYX_ASSIGN_OR_RETURN(axis, ScalarIntInput(ctx, 2, "axis"));
    }
    // The last dimension holds the complex components and cannot be transformed.
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank - 1) {
      return InvalidArgument("axis " + std::to_string(axis) + " is out of range for input 'input' of shape " +
                             ShapeToString(x->shape()) + " (accepted: [-" + std::to_string(rank) + ", -2] or [0, " +
                             std::to_string(rank - 2) + "])");
    }
    const int64_t n_in = x->dim(a);
    const bool irfft = inverse_ && onesided_;
    int64_t length = irfft ? 2 * (n_in - 1) : n_in;
    if (ctx.has_input(1)) {
      ONYX_ASSIGN_OR_RETURN(length, ScalarIntInput(ctx, 1, "dft_length"));
      if (length <= 0) return InvalidArgument("input 'dft_length' (1) is " + std::to_string(length) + ", expected > 0");
    } else if (length <= 0) {
      return InvalidArgument("input 'input' (0) has " + std::to_string(n_in) + " bins along axis " +
                             std::to_string(a) + "; an inverse one-sided DFT needs at least 2 or a 'dft_length'");
    }
    const int64_t n_out = irfft ? length : (onesided_ ? length / 2 + 1 : length);
    const int64_t c_in = x->dim(rank - 1), c_out = irfft ? 1 : 2;
    Shape out_shape = x->shape();
    out_shape[static_cast<size_t>(a)] = n_out;
    out_shape.back() = c_out;
    ONYX_RETURN_IF_ERROR(CheckedNumElements(out_shape).status());

    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < a; ++d) outer *= x->dim(d);
    for (int64_t d = a + 1; d < rank - 1; ++d) inner *= x->dim(d);

    return Dispatch<FloatTypes>(x->type(), [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor& out = ctx.AllocateOutput(0, x->type(), out_shape);
      if (out.size() == 0) return Status::Ok();
      const T* in = x->data<T>();
      T* o = out.data<T>();
      FftPlan plan(length);
      std::vector<Complex> line(static_cast<size_t>(length));
      // IRFFT reads bins 0..length/2 and rebuilds the rest by conjugate symmetry.
      const int64_t used = irfft ? std::min(n_in, length / 2 + 1) : std::min(n_in, length);
      const double scale = inverse_ ? 1.0 / static_cast<double>(length) : 1.0;
      for (int64_t ob = 0; ob < outer; ++ob) {
        for (int64_t ib = 0; ib < inner; ++ib) {
          std::fill(line.begin(), line.end(), Complex(0, 0));
          for (int64_t t = 0; t < used; ++t) {
            const T* v = in + ((ob * n_in + t) * inner + ib) * c_in;
            line[static_cast<size_t>(t)] = Complex(ToDouble(v[0]), c_in == 2 ? ToDouble(v[1]) : 0.0);
          }
          if (irfft) {
            // The bins of a real signal's spectrum that have no partner (0 and, for even lengths, n/2) are real.
            line[0].imag(0.0);
            if (length % 2 == 0 && length / 2 < used) line[static_cast<size_t>(length / 2)].imag(0.0);
            for (int64_t k = 1; k < used; ++k) {
              if (length - k > k) line[static_cast<size_t>(length - k)] = std::conj(line[static_cast<size_t>(k)]);
            }
          }
          plan.Transform(line, inverse_);
          for (int64_t k = 0; k < n_out; ++k) {
            T* v = o + ((ob * n_out + k) * inner + ib) * c_out;
            const Complex y = line[static_cast<size_t>(k)] * scale;
            v[0] = FromDouble<T>(y.real());
            if (c_out == 2) v[1] = FromDouble<T>(y.imag());
          }
        }
      }
      return Status::Ok();
    });
  }

 private:
  bool inverse_ = false;
  bool onesided_ = false;
  bool axis_from_input_ = false;
  int64_t axis_ = 1;
};

}  // namespace

void RegisterDftOps(KernelRegistry& registry) {
  registry.Add("", "DFT", 17, kLatestVersion, MakeFactory<DftKernel>());
}

}  // namespace onyx::ops::signal_ops
