// MelWeightMatrix: a [dft_length / 2 + 1, num_mel_bins] matrix that maps a one-sided magnitude spectrum to mel
// bands. num_mel_bins + 2 points evenly spaced on the mel scale (mel = 2595 log10(1 + hz / 700)) between the edge
// frequencies are mapped to spectrogram bins (floor((dft_length + 1) hz / sample_rate)); band i is a triangle
// rising from point i to point i + 1 and falling to point i + 2. The spacing divides by num_mel_bins + 2, as the
// ONNX reference implementation and its test data do.
#include <cmath>
#include <vector>

#include "ops/signal/signal.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::signal_ops {
namespace {

double HertzToMel(double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); }
double MelToHertz(double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); }

class MelWeightMatrixKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
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
    ONYX_ASSIGN_OR_RETURN(const int64_t num_mel_bins, ScalarIntInput(ctx, 0, "num_mel_bins"));
    ONYX_ASSIGN_OR_RETURN(const int64_t dft_length, ScalarIntInput(ctx, 1, "dft_length"));
    ONYX_ASSIGN_OR_RETURN(const int64_t sample_rate, ScalarIntInput(ctx, 2, "sample_rate"));
    ONYX_ASSIGN_OR_RETURN(const double lower_hz, ScalarFloatInput(ctx, 3, "lower_edge_hertz"));
    ONYX_ASSIGN_OR_RETURN(const double upper_hz, ScalarFloatInput(ctx, 4, "upper_edge_hertz"));
    if (num_mel_bins <= 0) return InvalidArgument("input 'num_mel_bins' (0) is " + std::to_string(num_mel_bins) + ", expected > 0");
    if (dft_length <= 0) return InvalidArgument("input 'dft_length' (1) is " + std::to_string(dft_length) + ", expected > 0");
    if (sample_rate <= 0) return InvalidArgument("input 'sample_rate' (2) is " + std::to_string(sample_rate) + ", expected > 0");
    if (!(lower_hz >= 0.0) || !(upper_hz >= lower_hz)) {
      return InvalidArgument("edge frequencies [" + std::to_string(lower_hz) + ", " + std::to_string(upper_hz) +
                             "] must satisfy 0 <= lower_edge_hertz <= upper_edge_hertz");
    }
    const int64_t spectrogram_bins = dft_length / 2 + 1;
    ONYX_RETURN_IF_ERROR(CheckedNumElements({spectrogram_bins, num_mel_bins}).status());

    const double low_mel = HertzToMel(lower_hz), high_mel = HertzToMel(upper_hz);
    const double mel_step = (high_mel - low_mel) / static_cast<double>(num_mel_bins + 2);
    std::vector<int64_t> points(static_cast<size_t>(num_mel_bins + 2));
    for (int64_t i = 0; i < num_mel_bins + 2; ++i) {
      const double hz = MelToHertz(static_cast<double>(i) * mel_step + low_mel);
      points[static_cast<size_t>(i)] =
          static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate)));
    }
    std::vector<double> w(static_cast<size_t>(spectrogram_bins * num_mel_bins), 0.0);
    auto set = [&](int64_t bin, int64_t band, double v) -> Status {
      if (bin < 0 || bin >= spectrogram_bins) {
        return InvalidArgument("upper_edge_hertz " + std::to_string(upper_hz) + " maps past the last of the " +
                               std::to_string(spectrogram_bins) + " spectrogram bins (is it above sample_rate / 2?)");
      }
      w[static_cast<size_t>(bin * num_mel_bins + band)] = v;
      return Status::Ok();
    };
    for (int64_t i = 0; i < num_mel_bins; ++i) {
      const int64_t left = points[static_cast<size_t>(i)], center = points[static_cast<size_t>(i) + 1],
                    right = points[static_cast<size_t>(i) + 2];
      if (center == left) {
        ONYX_RETURN_IF_ERROR(set(center, i, 1.0));
      } else {
        for (int64_t j = left; j <= center; ++j) {
          ONYX_RETURN_IF_ERROR(set(j, i, static_cast<double>(j - left) / static_cast<double>(center - left)));
        }
      }
      for (int64_t j = center; j < right; ++j) {
        ONYX_RETURN_IF_ERROR(set(j, i, static_cast<double>(right - j) / static_cast<double>(right - center)));
      }
    }
    return Dispatch<NumericTypes>(output_type_, [&](auto tag) -> Status {
      using T = typename decltype(tag)::type;
      Tensor& out = ctx.AllocateOutput(0, output_type_, {spectrogram_bins, num_mel_bins});
      T* o = out.data<T>();
      for (size_t i = 0; i < w.size(); ++i) o[i] = FromDouble<T>(w[i]);
      return Status::Ok();
    });
  }

 private:
  DataType output_type_ = DataType::kFloat;
};

}  // namespace

void RegisterMelWeightMatrixOps(KernelRegistry& registry) {
  registry.Add("", "MelWeightMatrix", 17, kLatestVersion, MakeFactory<MelWeightMatrixKernel>());
}

}  // namespace onyx::ops::signal_ops
