#include "kernels/int8_conv.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kernels/dnnl_util.h"
#include "kernels/tuning_cache.h"

namespace onyx::kernels {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

struct Int8Conv::Impl {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward conv;
  memory weights;
  // NCHW -> NHWC of one image into a buffer with margin (Int8Conv::OutputSlack): a reorder, or a copy when the two
  // layouts are the same (one channel or one pixel).
  bool reorder_source = false;
  memory::desc nchw_src;
  dnnl::reorder to_nhwc;
  dnnl::reorder::primitive_desc to_nhwc_pd;
  bool amx = false;    // an AMX kernel: may touch whole 16-pixel tiles past the image (OutputSlack)
  bool fused = false;  // requantizes into an 8-bit destination
  memory bias;         // s32 [M] when fused with a bias
  // RunNhwc's arguments, built once (a dnnl::memory per argument and an argument map per call cost ~25 heap
  // allocations and several microseconds per convolution, MobileNet has 52); used under a try_lock, a run that finds
  // them busy (concurrent runs of a session) builds its own.
  std::mutex args_mutex;
  DnnlArgs args;
  int32_t args_zero_point = 0;  // what args' zero-point memory points at
  // Set where the primitive has no zero-point argument (Create's constant_zero_point): the one x zero point it
  // computes for.
  std::optional<int32_t> constant_zero_point;
  // Where that zero point is not 0 and the convolution pads: the primitive's own dims (the image grown by the
  // padding, no padding of its own), and the runs copy each image into a buffer bordered with the zero point.
  bool pre_padded = false;
  Int8ConvDims primitive_dims;
  // int32 sums for a non-zero constant zero point: z * sum(w[m]), subtracted from the primitive's uncentred sums.
  std::vector<int32_t> sum_offsets;
  // How a run's int32 sums are known exact where this kernel writes them through float and the weights can take them
  // past 2^24 (SumsMayLeaveFloat): without the zero-point argument the sums it rounds are its results, so results
  // below 2^24 were exact (ResultExact); with it, oneDNN's direct 1x1 kernel was measured rounding the uncentred
  // accumulator before the zero point's share comes off, so x's raw bytes must keep every uncentred sum below 2^24
  // (SumsExactFor, max_exact_magnitude).
  enum class ExactCheck { kNone, kResults, kInput } exact_check = ExactCheck::kNone;
  int32_t max_exact_magnitude = std::numeric_limits<int32_t>::max();  // kInput: the largest |x| that keeps them
  bool signed_source = false;
};

namespace {
constexpr int64_t kMarginPixels = 64;
}  // namespace

Int8Conv::Int8Conv(const Int8ConvDims& dims, int threads, std::unique_ptr<Impl> impl)
    : dims_(dims), threads_(threads), impl_(std::move(impl)) {}

Int8Conv::~Int8Conv() = default;

void Int8Conv::EvictWeights() const {
  FlushFromCaches(impl_->weights.get_data_handle(), impl_->weights.get_desc().get_size());
}

const char* Int8Conv::implementation() const { return impl_->pd.impl_info_str(); }

namespace {

// The sum and the sum of magnitudes of `count` int8 weights (one output channel's), branch-free in int32 over chunks
// that cannot overflow, so the compiler vectorizes them: a branch per weight (random signs) made the bound below ~80
// ms of ResNet-50's first run.
struct WeightSums {
  int64_t sum = 0, sum_abs = 0;
};

WeightSums SumWeights(const int8_t* w, int64_t count) {
  WeightSums out;
  constexpr int64_t kChunk = int64_t{1} << 22;  // 127 * 2^22 < 2^31
  for (int64_t k0 = 0; k0 < count; k0 += kChunk) {
    const int64_t k1 = std::min(count, k0 + kChunk);
    int32_t s = 0, a = 0;
    for (int64_t k = k0; k < k1; ++k) {
      const int32_t v = w[k];
      s += v;
      a += v < 0 ? -v : v;
    }
    out.sum += s;
    out.sum_abs += a;
  }
  return out;
}

// Weights per output channel of a [M, C/group, kh, kw] tensor.
int64_t WeightsPerChannel(const Int8ConvDims& d) { return d.in_channels / d.group * d.kernel_h * d.kernel_w; }

}  // namespace

bool FusedRequantIsExact(const int8_t* weights, int64_t out_channels, int64_t per_channel,
                         const std::vector<int32_t>& bias, int32_t source_low, int32_t source_high) {
  // Each term (x - x_zero_point) * w lies in [low * w, high * w] (w > 0) or [high * w, low * w] (w < 0): the sum
  // of a channel lies within -(|low| P + high N) .. high P + |low| N, P and N the sums of its positive weights and
  // of its negative weights' magnitudes. float(acc) + float(bias) is then float(acc + bias): both terms exact.
  constexpr int64_t kExactFloat = int64_t{1} << 24;
  const int64_t low = std::abs(static_cast<int64_t>(source_low)), high = source_high;
  for (int64_t m = 0; m < out_channels; ++m) {
    // P = (sum |w| + sum w) / 2, N = (sum |w| - sum w) / 2.
    const auto [sum, sum_abs] = SumWeights(weights + m * per_channel, per_channel);
    const int64_t positive = (sum_abs + sum) / 2, negative = (sum_abs - sum) / 2;
    const int64_t b = bias.empty() ? 0 : std::abs(static_cast<int64_t>(bias[static_cast<size_t>(m)]));
    if (std::max(high * positive + low * negative, low * positive + high * negative) >= kExactFloat ||
        b >= kExactFloat) {
      return false;
    }
  }
  return true;
}

int Int8ConvThreads(const Int8ConvDims& d, int threads) {
  const bool depthwise = d.group > 1 && d.in_channels == d.group;
  return PrimitiveThreads(depthwise ? d.Flops() * kDepthwiseTapCost : d.Flops(), threads);
}

bool Int8Conv::fused_requant() const { return impl_->fused; }

namespace {

// `image` ([H, W, C] 8-bit) into `out` ([H + top + bottom, W + left + right, C]), the border set to `value`.
void BorderImage(const Int8ConvDims& d, const uint8_t* image, uint8_t value, uint8_t* out) {
  const int64_t c = d.in_channels, row = d.in_w * c;
  const int64_t out_row = (d.in_w + d.pad_left + d.pad_right) * c;
  std::memset(out, value, static_cast<size_t>(d.pad_top * out_row));
  uint8_t* o = out + d.pad_top * out_row;
  for (int64_t h = 0; h < d.in_h; ++h, o += out_row) {
    std::memset(o, value, static_cast<size_t>(d.pad_left * c));
    std::memcpy(o + d.pad_left * c, image + h * row, static_cast<size_t>(row));
    std::memset(o + d.pad_left * c + row, value, static_cast<size_t>(d.pad_right * c));
  }
  std::memset(o, value, static_cast<size_t>(d.pad_bottom * out_row));
}

}  // namespace

namespace {

// The largest |v| of `count` 8-bit values, from their range in their own type (the loop vectorizes).
template <typename T>
int32_t MaxMagnitude(const T* p, int64_t count) {
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
  for (int64_t i = 0; i < count; ++i) {
    lo = std::min(lo, p[i]);
    hi = std::max(hi, p[i]);
  }
  return count == 0 ? 0 : std::max(std::abs(int32_t{lo}), std::abs(int32_t{hi}));
}

}  // namespace

bool Int8Conv::SumsExactFor(const void* x) const {
  if (impl_->exact_check != Impl::ExactCheck::kInput || impl_->max_exact_magnitude >= 255) return true;
  const int64_t count = dims_.batch * dims_.in_channels * dims_.in_h * dims_.in_w;
  const int32_t largest = impl_->signed_source ? MaxMagnitude(static_cast<const int8_t*>(x), count)
                                               : MaxMagnitude(static_cast<const uint8_t*>(x), count);
  return largest <= impl_->max_exact_magnitude;
}

bool Int8Conv::ResultExact(const int32_t* y) const {
  if (impl_->exact_check != Impl::ExactCheck::kResults) return true;
  // A sum of magnitude >= 2^24 rounds to a float of magnitude >= 2^24 (a power of two), and one below it converts
  // exactly: every result below 2^24 is its exact sum. Branch-free so that the scan vectorizes.
  constexpr int32_t kLimit = (1 << 24) - 1;
  int32_t past = 0;
  if (impl_->sum_offsets.empty()) {
    const int64_t count = dims_.batch * dims_.out_h * dims_.out_w * dims_.out_channels;
    for (int64_t i = 0; i < count; ++i) past |= (y[i] > kLimit) | (y[i] < -kLimit);
    return past == 0;
  }
  // The primitive's own (uncentred) results: y plus the offset subtracted from them.
  const int64_t pixels = dims_.batch * dims_.out_h * dims_.out_w, m_count = dims_.out_channels;
  const int32_t* offsets = impl_->sum_offsets.data();
  for (int64_t p = 0; p < pixels; ++p) {
    for (int64_t m = 0; m < m_count; ++m) {
      const int64_t v = int64_t{y[p * m_count + m]} + offsets[m];
      past |= (v > kLimit) | (v < -kLimit);
    }
  }
  return past == 0;
}

bool Int8Conv::has_zero_point_argument() const { return !impl_->constant_zero_point.has_value(); }

namespace {

bool IsAmx(const dnnl::convolution_forward::primitive_desc& pd) {
  return std::string(pd.impl_info_str()).find("amx") != std::string::npos;
}

// Runs `conv` (of `pd`) on one image: src -> dst, with x's zero point (empty: a primitive without that argument) and,
// when given, the bias; on the calling thread's scratchpad.
void ExecuteImage(const dnnl::convolution_forward& conv, const dnnl::convolution_forward::primitive_desc& pd,
                  const memory& weights, const memory& bias, const memory& zero_point, const void* src, void* dst) {
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(pd.src_desc(), DnnlEngine(), const_cast<void*>(src))},
                                       {DNNL_ARG_WEIGHTS, weights},
                                       {DNNL_ARG_DST, memory(pd.dst_desc(), DnnlEngine(), dst)}};
  if (zero_point) args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_point);
  if (bias) args.emplace(DNNL_ARG_BIAS, bias);
  AddThreadScratchpad(pd, args);
  conv.execute(DnnlStream(), args);
}

std::string Signature(const Int8ConvDims& d, const memory::desc& src, bool fused, bool zero_point_argument,
                      int threads) {
  auto dim = [](int64_t a, int64_t b) { return std::to_string(a) + "x" + std::to_string(b); };
  // "/zc": no zero-point argument, which changes oneDNN's candidates.
  return "int8conv2/" + std::string(src.data_type() == Dt::s8 ? "s8" : "u8") + (fused ? "/fused" : "/s32") +
         (zero_point_argument ? "" : "/zc") + "/n" + std::to_string(d.batch) + "/c" + std::to_string(d.in_channels) +
         "/m" + std::to_string(d.out_channels) + "/g" + std::to_string(d.group) + "/in" + dim(d.in_h, d.in_w) + "/k" +
         dim(d.kernel_h, d.kernel_w) + "/s" + dim(d.stride_h, d.stride_w) + "/d" + dim(d.dilation_h, d.dilation_w) +
         "/p" + dim(d.pad_top, d.pad_left) + "-" + dim(d.pad_bottom, d.pad_right) + "/t" + std::to_string(threads) +
         (threads > 1 ? "/placed" : "");  // "/placed" (session 37): input and output placed as in a model (below)
}

// An AMX kernel runs on a unit that powers down while no AMX code runs: the first AMX convolution after other
// work pays its warm-up, which timing the candidates back to back never sees. Measured on this Xeon: in
// MobileNet-v2, the first AMX layer took ~0.05 ms more in the model than timed alone (features.15, 1x1 160 -> 960
// on 7x7: 0.080 ms against 0.022 timed, 0.031 on VNNI; with it on VNNI, features.18, 320 -> 1280: 0.087 against
// 0.038), the AMX layers after it their timed cost. So AMX needs a clear win, by more than a margin of the order of
// that warm-up, until some layer has taken it by such a win: from then on the process runs AMX layers anyway (their
// unit warm in every run, as in ResNet-50, whose stem and 3x3 layers win by 0.1 to 0.25 ms), and the plain fastest
// is taken as before (AMX unless VNNI beats it by 3%). MobileNet's 1x1 layers win by 0 to 26 us: all VNNI. The
// margin is a compromise, since one warm-up serves every AMX layer of a run and the rule decides layer by layer: at
// 0.03 ms SqueezeNet's classifier (1x1, 512 -> 1000 on 13x13, 2 threads), timed 31 us faster on AMX than on the best
// VNNI kernel, became the model's only AMX layer and ran ~50 us slower in it; at 0.05 ms its two 3x3 layers on
// 13x13 (1 thread, 45 us wins each) stayed on VNNI and ran ~40 us slower in all. Only the speed depends on the
// choice (every kernel is exact: tests/unit/int8_conv_impls_test.cc runs each one), and so on the order in which
// layers are created.
constexpr double kAmxWarmupMarginMs = 0.04;
std::atomic<bool> amx_taken_clearly{false};

// At most this many of oneDNN's implementations for a shape are timed, in its order (its best guess first), the
// reference ones left out. Its AMX and VNNI kernels come in several designs (brgemm-based, direct 1x1, direct) whose
// ranking depends on the shape: MobileNet-v2's expansion 1x1 layers ran 5-17% faster on the direct 1x1 VNNI kernel
// than on oneDNN's first VNNI choice (brgconv_1x1), its 7x7 layers 30% slower.
constexpr size_t kMaxCandidates = 4;

// Another non-AMX kernel replaces oneDNN's first one only when timed this much faster (a share of its time): timed
// alone, back to back, a kernel can win by a few percent and lose in the model, where its input comes from the
// previous layer and its output goes to the next (SqueezeNet's first convolution, 3 -> 64 3x3: the direct kernel
// timed 5% faster than brgconv, ran 20% slower in the model). MobileNet-v2's 1x1 layers that won by 10-21% kept
// their gain in the model.
constexpr double kMinGainOverFirst = 0.08;

// The index of the candidate to run, from the measured times (+infinity: not measured or failed). Among the non-AMX
// kernels the fastest, kept to oneDNN's first unless it wins by kMinGainOverFirst; AMX's fastest against that one by
// the warm-up rule above; `fallback` when nothing was measured.
size_t ChooseByTimes(const std::vector<double>& ms, const std::vector<bool>& amx, size_t fallback) {
  const size_t n = ms.size();
  size_t best_amx = n, best_other = n, first_other = n;
  for (size_t i = 0; i < n; ++i) {
    if (amx[i]) {
      if (std::isfinite(ms[i]) && (best_amx == n || ms[i] < ms[best_amx])) best_amx = i;
    } else if (first_other == n) {
      first_other = i;
    }
  }
  if (first_other != n) {
    std::vector<double> other(n, std::numeric_limits<double>::infinity());
    for (size_t i = 0; i < n; ++i) {
      if (!amx[i]) other[i] = ms[i];
    }
    best_other = PickFastest(other, first_other, kMinGainOverFirst);
    if (!std::isfinite(other[best_other])) best_other = n;
  }
  if (best_amx == n) return best_other != n ? best_other : fallback;
  if (best_other == n) return best_amx;
  const double a = ms[best_amx], v = ms[best_other];
  if (a + kAmxWarmupMarginMs < v) {
    amx_taken_clearly.store(true, std::memory_order_relaxed);
    return best_amx;
  }
  if (amx_taken_clearly.load(std::memory_order_relaxed)) return PickFastest({a, v}, 0) == 0 ? best_amx : best_other;
  return best_other;
}

// The instruction-set family of an implementation name ("brgconv_1x1:avx512_core_vnni" -> "avx512"; "avx2_vnni",
// "sse41" and "gemm_s8u8s32:jit" stand for themselves).
std::string IsaFamily(const std::string& name) {
  const size_t colon = name.find(':');
  const std::string isa = colon == std::string::npos ? name : name.substr(colon + 1);
  return isa.rfind("avx512", 0) == 0 ? "avx512" : isa;
}

// oneDNN's implementations for the shape of `first` (which is the first), in its order, at most kMaxCandidates of the
// first one's instruction-set family (its fallbacks for older CPUs and its GEMM-based and reference ones were 1.5 to
// 500x slower), each once: when the first one's primitive is in oneDNN's primitive cache, the iterator behind `first`
// starts before it and yields it again (observed with 2.6). With `brgemm_only`, only oneDNN's brgemm-based ones (see
// SumsMayLeaveFloat), possibly none.
std::vector<dnnl::convolution_forward::primitive_desc> Candidates(
    const dnnl::convolution_forward::primitive_desc& first, bool brgemm_only = false) {
  std::vector<dnnl::convolution_forward::primitive_desc> pds{first};
  std::vector<std::string> names{first.impl_info_str()};
  const std::string family = IsaFamily(names[0]);
  // next_impl moves `it` (a handle of its own) to the next implementation; the copies already taken keep theirs.
  dnnl::convolution_forward::primitive_desc it = first;
  while (pds.size() < kMaxCandidates && it.next_impl()) {
    std::string name = it.impl_info_str();
    if (name.rfind("ref", 0) == 0) break;
    if (IsaFamily(name) != family || std::find(names.begin(), names.end(), name) != names.end()) continue;
    names.push_back(std::move(name));
    pds.push_back(it);
  }
  if (brgemm_only) {
    std::vector<dnnl::convolution_forward::primitive_desc> brgemm;
    for (size_t i = 0; i < pds.size(); ++i) {
      if (names[i].rfind("brg", 0) == 0) brgemm.push_back(pds[i]);
    }
    return brgemm;
  }
  return pds;
}

}  // namespace

// oneDNN offers its AMX kernels first wherever the CPU has AMX, but they pay a tile configuration per call that small
// convolutions (MobileNet's 1x1 layers of a few channels) never earn back, while the big ones run up to 2x faster
// than on VNNI; and among its VNNI kernels the best depends on the shape too. So the candidates are timed on the
// real shape (the tuning cache, kernels/tuning_cache.h, remembers the times per CPU model); the fixed rule is
// oneDNN's order.
dnnl::convolution_forward::primitive_desc Int8Conv::ChooseImplementation(
    const Int8ConvDims& d, const std::vector<dnnl::convolution_forward::primitive_desc>& pds, memory plain_weights,
    bool fused, bool zero_point_argument, int threads) {
  const dnnl::convolution_forward::primitive_desc& first = pds.front();
  const TuningMode mode = CurrentTuningMode();
  if (mode == TuningMode::kOff || pds.size() < 2) return first;
  const size_t n = pds.size();
  std::vector<std::string> names(n);
  std::vector<bool> amx(n);
  for (size_t i = 0; i < n; ++i) {
    names[i] = pds[i].impl_info_str();
    amx[i] = IsAmx(pds[i]);
  }
  const auto cache = TuningCache::Process();
  const std::string signature = Signature(d, first.src_desc(), fused, zero_point_argument, threads);
  if (auto entry = cache->Find(signature, mode == TuningMode::kAlways)) {
    // The times decide again (the warm-up rule depends on what other layers of this process chose).
    std::vector<double> ms(n, std::numeric_limits<double>::infinity());
    size_t stored = 0;
    for (size_t i = 0; i < n; ++i) {
      for (const TunedTime& t : entry->times) {
        if (t.candidate == names[i]) ms[i] = t.ms;
      }
      if (names[i] == entry->choice) stored = i;
    }
    const size_t pick = ChooseByTimes(ms, amx, stored);
    entry->choice = names[pick];
    cache->NoteDecision(signature, *entry, false);
    return pds[pick];
  }
  if (mode == TuningMode::kCache && !cache->MissBudgetLeft()) return first;
  const auto start = std::chrono::steady_clock::now();
  std::vector<dnnl::convolution_forward> convs(n);
  std::vector<memory> weights(n);
  for (size_t i = 0; i < n; ++i) {
    convs[i] = dnnl::convolution_forward(pds[i]);
    weights[i] = memory(pds[i].weights_desc(), DnnlEngine());
    dnnl::reorder(plain_weights, weights[i]).execute(DnnlStream(), plain_weights, weights[i]);
  }
  // Scratch images with the AMX margin (OutputSlack); their values do not change the time of integer products.
  const size_t src_bytes = static_cast<size_t>(d.in_channels * (d.in_h * d.in_w + kMarginPixels));
  const size_t dst_bytes = static_cast<size_t>(d.out_channels * (d.out_h * d.out_w + kMarginPixels)) * sizeof(int32_t);
  std::vector<uint8_t> src(src_bytes, 1), dst(dst_bytes);
  const std::vector<uint8_t> ones = threads > 1 ? src : std::vector<uint8_t>();
  int32_t zp = 0;
  memory zp_mem;
  if (zero_point_argument) zp_mem = memory({{1}, Dt::s32, Tag::x}, DnnlEngine(), &zp);
  memory bias;
  if (first.bias_desc().get_size() > 0) {
    bias = memory(first.bias_desc(), DnnlEngine());
    std::memset(bias.get_data_handle(), 0, first.bias_desc().get_size());
  }
  const std::vector<double> ms = TimeCandidates(
      n,
      [&](size_t i) {
        return DnnlCall("int8 convolution (timing)", [&] {
          ExecuteImage(convs[i], pds[i], weights[i], bias, zp_mem, src.data(), dst.data());
          DnnlStream().wait();
        });
      },
      std::vector<int>(n, threads), 20, 5,
      [&](size_t) {
        // With several threads, both images rewritten by them before each run, spread over their caches as the
        // previous nodes leave a model's buffers (PlaceAsWrittenBy).
        if (threads <= 1) return;
        PlaceAsWrittenBy(src.data(), ones.data(), src.size(), threads);
        PlaceAsWrittenBy(dst.data(), nullptr, dst.size(), threads);
      });
  cache->SpendMissTime(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  TuningEntry entry{"", {}};
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(ms[i])) entry.times.push_back({names[i], ms[i]});
  }
  const size_t pick = ChooseByTimes(ms, amx, 0);
  entry.choice = names[pick];
  if (std::isfinite(ms[pick])) {
    (void)cache->Record(signature, entry);  // a cache that cannot be written was warned about; the run goes on
    cache->NoteDecision(signature, entry, true);
  }
  return pds[pick];
}

namespace {

// The primitive descriptor of oneDNN's first implementation for `d` (one image per call, channels last, the source
// zero point a run-time value; with `requant`, its output scales and zero-point post-ops), and the layouts around
// it. oneDNN's implementation iterator (next_impl) keeps a pointer to the operation descriptor: `desc` lives here,
// and a Described is filled in place and never moved while its pd is iterated. Throws dnnl::error (call inside
// DnnlCall).
struct Described {
  Described() = default;
  Described(const Described&) = delete;
  Described& operator=(const Described&) = delete;
  std::optional<dnnl::convolution_forward::desc> desc;
  dnnl::convolution_forward::primitive_desc pd;
  memory::dims src_dims, w_dims;
  memory::desc src_md, bias_md;
  bool with_bias = false;
};

void Describe(const Int8ConvDims& d, bool signed_source, const Int8ConvRequant* requant, bool zero_point_argument,
              Described& r) {
  const Dt src_type = signed_source ? Dt::s8 : Dt::u8;
  // One image per primitive call (see OutputSlack).
  r.src_dims = {1, d.in_channels, d.in_h, d.in_w};
  const memory::dims dst_dims{1, d.out_channels, d.out_h, d.out_w};
  const int64_t cg = d.in_channels / d.group, mg = d.out_channels / d.group;
  r.w_dims = d.group == 1 ? memory::dims{d.out_channels, cg, d.kernel_h, d.kernel_w}
                          : memory::dims{d.group, mg, cg, d.kernel_h, d.kernel_w};
  r.src_md = memory::desc(r.src_dims, src_type, Tag::nhwc);
  const Dt dst_type = requant == nullptr ? Dt::s32 : requant->signed_output ? Dt::s8 : Dt::u8;
  const memory::desc dst_md(dst_dims, dst_type, Tag::nhwc);
  const memory::desc w_any(r.w_dims, Dt::s8, Tag::any);
  r.with_bias = requant != nullptr && !requant->bias.empty();
  r.bias_md = memory::desc({d.out_channels}, Dt::s32, Tag::x);
  if (r.with_bias) {
    r.desc.emplace(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, r.src_md, w_any, r.bias_md,
                   dst_md, memory::dims{d.stride_h, d.stride_w}, memory::dims{d.dilation_h - 1, d.dilation_w - 1},
                   memory::dims{d.pad_top, d.pad_left}, memory::dims{d.pad_bottom, d.pad_right});
  } else {
    r.desc.emplace(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, r.src_md, w_any, dst_md,
                   memory::dims{d.stride_h, d.stride_w}, memory::dims{d.dilation_h - 1, d.dilation_w - 1},
                   memory::dims{d.pad_top, d.pad_left}, memory::dims{d.pad_bottom, d.pad_right});
  }
  dnnl::primitive_attr attr = UserScratchpadAttr();  // runs of a session may execute it at once
  if (zero_point_argument) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  if (requant != nullptr) {
    attr.set_output_scales(requant->scales.size() == 1 ? 0 : 1 << 1, requant->scales);
    if (requant->zero_point != 0) {
      // Round half to even first, then add the zero point to the integer value (see Int8ConvRequant).
      dnnl::post_ops ops;
      ops.append_eltwise(1.f, dnnl::algorithm::eltwise_round, 0.f, 0.f);
      ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, 1.f, static_cast<float>(requant->zero_point));
      attr.set_post_ops(ops);
    }
  }
  r.pd = dnnl::convolution_forward::primitive_desc(*r.desc, attr, DnnlEngine());
}

bool HasPadding(const Int8ConvDims& d) {
  return d.pad_top != 0 || d.pad_left != 0 || d.pad_bottom != 0 || d.pad_right != 0;
}

// A padded convolution with a non-zero constant x zero point runs on a copy of its image bordered with the zero
// point (the padding taps then read it, as ONNX specifies) where each input pixel feeds this many products or more
// per tap: the copy is then small against the work (a 3x3 layer of 128 channels on 28x28: ~0.01 ms of copy, 0.2 ms
// saved). Depthwise convolutions (one channel per group) keep the argument.
constexpr int64_t kPrePadMinChannelsPerGroup = 8;

bool PrePads(const Int8ConvDims& d, int32_t zero_point) {
  return zero_point != 0 && HasPadding(d) && d.in_channels / d.group >= kPrePadMinChannelsPerGroup;
}

// `d` on an image grown by its padding, without padding of its own.
Int8ConvDims PrePadded(Int8ConvDims d) {
  d.in_h += d.pad_top + d.pad_bottom;
  d.in_w += d.pad_left + d.pad_right;
  d.pad_top = d.pad_left = d.pad_bottom = d.pad_right = 0;
  return d;
}

// How a primitive is built for x's zero point: with oneDNN's run-time argument, or for one constant value without it
// (oneDNN 2.6 offers its brgemm convolutions only then). Zero needs nothing more. A non-zero z goes into the bias:
// sum((x - z) * w) = sum(x * w) - z * sum(w) over every tap, which holds only where no tap is padding (a padding tap
// reads 0, not z) or the image is bordered with z (PrePads). With a fused requantization the primitive's float sum
// of acc and bias stays exact only while both stay below 2^24, now for x over its whole range; int32 sums come out
// uncentred and the run subtracts z * sum(w[m]) from them (Impl::sum_offsets), in integers.
struct ZeroPointPlan {
  std::optional<int32_t> constant;        // set: no argument
  bool pre_padded = false;                // the image bordered with the constant (Impl::pre_padded)
  std::optional<Int8ConvRequant> folded;  // the requantization with z folded into its bias
  std::vector<int32_t> sum_offsets;       // int32 sums: z * sum(w[m]) to subtract per output channel
};

// `weights` null: the rule without the bound on the folded bias (Implementations).
ZeroPointPlan PlanZeroPoint(const Int8ConvDims& d, bool signed_source, const int8_t* weights,
                            const Int8ConvRequant* requant, std::optional<int32_t> constant_zero_point) {
  ZeroPointPlan plan;
  if (!constant_zero_point.has_value()) return plan;
  const int32_t z = *constant_zero_point;
  if (z == 0) {
    plan.constant = 0;
    return plan;
  }
  if (HasPadding(d) && !PrePads(d, z)) return plan;
  const int64_t per_channel = WeightsPerChannel(d);
  auto channel_sum = [&](int64_t m) { return SumWeights(weights + m * per_channel, per_channel).sum; };
  if (requant == nullptr) {
    if (weights != nullptr) {
      plan.sum_offsets.resize(static_cast<size_t>(d.out_channels));
      for (int64_t m = 0; m < d.out_channels; ++m) {
        const int64_t sum = channel_sum(m);
        // |z * sum| <= 255 * 127 * per_channel; wrapped as ONNX's int32 result would be.
        plan.sum_offsets[static_cast<size_t>(m)] =
            static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(z) * sum)));
      }
    }
    plan.constant = z;
    plan.pre_padded = PrePads(d, z);
    return plan;
  }
  Int8ConvRequant folded = *requant;
  if (weights != nullptr) {
    folded.bias.assign(static_cast<size_t>(d.out_channels), 0);
    for (int64_t m = 0; m < d.out_channels; ++m) {
      const int64_t b = (requant->bias.empty() ? 0 : requant->bias[static_cast<size_t>(m)]) - z * channel_sum(m);
      if (b < std::numeric_limits<int32_t>::min() || b > std::numeric_limits<int32_t>::max()) return plan;
      folded.bias[static_cast<size_t>(m)] = static_cast<int32_t>(b);
    }
    const int32_t low = signed_source ? -128 : 0, high = signed_source ? 127 : 255;
    if (!FusedRequantIsExact(weights, d.out_channels, per_channel, folded.bias, low, high)) return plan;
  }
  plan.constant = z;
  plan.pre_padded = PrePads(d, z);
  plan.folded = std::move(folded);
  return plan;
}

// Whether int32 sums of these weights can reach 2^24 for some x: oneDNN 2.6's direct int8 kernels (jit_int8,
// jit_int8_1x1, jit_uni_int8) write an int32 destination through float (measured: a sum of 24620347 written as
// 24620348), and so do its brgemm-based ones with the zero-point argument; without it those keep the sums in int32
// (tests/unit/int8_conv_impls_test.cc, LargeSums...). With a fused requantization the sums go through float anyway,
// bounded by FusedRequantIsExact. x - zero point spans [-255, 255] where the zero point is a run-time value.
bool SumsMayLeaveFloat(const Int8ConvDims& d, bool signed_source, const int8_t* weights,
                       std::optional<int32_t> constant_zero_point) {
  int32_t low = -255, high = 255;
  if (constant_zero_point.has_value()) {
    low = (signed_source ? -128 : 0) - *constant_zero_point;
    high = (signed_source ? 127 : 255) - *constant_zero_point;
  }
  return !FusedRequantIsExact(weights, d.out_channels, WeightsPerChannel(d), {}, std::min(low, 0), std::max(high, 0));
}

// The largest |x| for which every uncentred int32 sum of these weights stays below 2^24 in magnitude: |sum| <= A *
// sum(|w[m]|) over the taps.
int32_t MaxExactMagnitude(const Int8ConvDims& d, const int8_t* weights) {
  const int64_t per_channel = WeightsPerChannel(d);
  int64_t widest = 0;
  for (int64_t m = 0; m < d.out_channels; ++m) {
    widest = std::max(widest, SumWeights(weights + m * per_channel, per_channel).sum_abs);
  }
  if (widest == 0) return std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(((int64_t{1} << 24) - 1) / widest);
}

}  // namespace

Result<std::vector<std::string>> Int8Conv::Implementations(const Int8ConvDims& d, bool signed_source, int threads,
                                                           const Int8ConvRequant* requant,
                                                           std::optional<int32_t> constant_zero_point) {
  std::vector<std::string> names;
  const ScopedOmpThreads scoped(threads);
  const ZeroPointPlan plan = PlanZeroPoint(d, signed_source, nullptr, requant, constant_zero_point);
  ONYX_RETURN_IF_ERROR(DnnlCall("int8 convolution", [&] {
    Described described;
    Describe(plan.pre_padded ? PrePadded(d) : d, signed_source, requant, !plan.constant.has_value(), described);
    if (std::string(described.pd.impl_info_str()).rfind("ref", 0) == 0) return;
    for (const auto& pd : Candidates(described.pd)) names.emplace_back(pd.impl_info_str());
  }));
  return names;
}

Result<std::unique_ptr<Int8Conv>> Int8Conv::Create(const Int8ConvDims& d, bool signed_source, const int8_t* weights,
                                                   int threads, const Int8ConvRequant* requant,
                                                   std::string_view implementation,
                                                   std::optional<int32_t> constant_zero_point) {
  if (constant_zero_point.has_value()) {
    auto made = CreateOnce(d, signed_source, weights, threads, requant, implementation, constant_zero_point);
    if (made.ok()) return made;
    // oneDNN 2.6 offers kernels it then fails to build without the argument (its direct VNNI kernel on grouped
    // convolutions of 8 channels per group): with it.
  }
  return CreateOnce(d, signed_source, weights, threads, requant, implementation, std::nullopt);
}

Result<std::unique_ptr<Int8Conv>> Int8Conv::CreateOnce(const Int8ConvDims& d, bool signed_source, const int8_t* weights,
                                                       int threads, const Int8ConvRequant* requant,
                                                       std::string_view implementation,
                                                       std::optional<int32_t> constant_zero_point) {
  auto impl = std::make_unique<Impl>();
  std::string impl_name;
  bool named_found = true;
  const ScopedOmpThreads scoped(threads);
  const ZeroPointPlan plan = PlanZeroPoint(d, signed_source, weights, requant, constant_zero_point);
  if (plan.folded.has_value()) requant = &*plan.folded;
  impl->constant_zero_point = plan.constant;
  impl->pre_padded = plan.pre_padded;
  impl->sum_offsets = plan.sum_offsets;
  impl->primitive_dims = plan.pre_padded ? PrePadded(d) : d;
  impl->signed_source = signed_source;
  const Int8ConvDims& pd_dims = impl->primitive_dims;
  const bool zero_point_argument = !impl->constant_zero_point.has_value();
  // Int32 sums these weights can take past 2^24: oneDNN's kernels that keep them exact (brgemm ones without the
  // argument) are preferred where offered; any other is checked per run (Impl::exact_check).
  // (Uncentred sums where a non-zero zero point's share comes off afterwards: x's raw range.)
  const bool may_round =
      requant == nullptr && SumsMayLeaveFloat(d, signed_source, weights,
                                              plan.sum_offsets.empty() ? plan.constant : std::optional<int32_t>(0));
  ONYX_RETURN_IF_ERROR(DnnlCall("int8 convolution", [&] {
    Described described;
    Describe(pd_dims, signed_source, requant, zero_point_argument, described);
    if (requant != nullptr) {
      impl->fused = true;
      if (described.with_bias) {
        impl->bias = memory(described.bias_md, DnnlEngine());
        std::memcpy(impl->bias.get_data_handle(), requant->bias.data(), requant->bias.size() * sizeof(int32_t));
      }
    }
    impl->pd = described.pd;
    impl_name = impl->pd.impl_info_str();
    if (impl_name.rfind("ref", 0) == 0) return;  // refused below
    memory plain({described.w_dims, Dt::s8, d.group == 1 ? Tag::oihw : Tag::goihw}, DnnlEngine(),
                 const_cast<int8_t*>(weights));
    if (implementation.empty()) {
      auto allowed = Candidates(impl->pd, may_round && !zero_point_argument);
      if (allowed.empty()) allowed = Candidates(impl->pd);
      impl->pd = ChooseImplementation(pd_dims, allowed, plain, requant != nullptr, zero_point_argument, threads);
    } else {
      named_found = false;
      for (const auto& pd : Candidates(impl->pd)) {
        if (pd.impl_info_str() == implementation) {
          impl->pd = pd;
          named_found = true;
        }
      }
      if (!named_found) return;
    }
    impl_name = impl->pd.impl_info_str();
    impl->conv = dnnl::convolution_forward(impl->pd);
    impl->weights = memory(impl->pd.weights_desc(), DnnlEngine());
    dnnl::reorder(plain, impl->weights).execute(DnnlStream(), plain, impl->weights);
    impl->reorder_source = d.in_channels > 1 && d.in_h * d.in_w > 1;
    if (impl->reorder_source) {
      // The image as given (a bordered one is copied from it afterwards).
      const memory::dims image_dims{1, d.in_channels, d.in_h, d.in_w};
      const Dt type = signed_source ? Dt::s8 : Dt::u8;
      impl->nchw_src = memory::desc(image_dims, type, Tag::nchw);
      impl->to_nhwc_pd = dnnl::reorder::primitive_desc(DnnlEngine(), impl->nchw_src, DnnlEngine(),
                                                       memory::desc(image_dims, type, Tag::nhwc), UserScratchpadAttr());
      impl->to_nhwc = dnnl::reorder(impl->to_nhwc_pd);
    }
    DnnlStream().wait();
  }));
  if (!named_found) {
    return InvalidArgument("oneDNN offers no int8 convolution implementation named '" + std::string(implementation) +
                           "' for this shape");
  }
  if (may_round && zero_point_argument) {
    impl->exact_check = Impl::ExactCheck::kInput;
    impl->max_exact_magnitude = MaxExactMagnitude(d, weights);
  } else if (may_round && impl_name.rfind("brg", 0) != 0) {
    impl->exact_check = Impl::ExactCheck::kResults;
  }
  if (impl_name.rfind("ref", 0) == 0) {
    return Unsupported("oneDNN has only its reference int8 convolution (" + impl_name + ") for this shape");
  }
  impl->amx = IsAmx(impl->pd);
  ONYX_RETURN_IF_ERROR(DnnlCall("int8 convolution arguments", [&] {
    Impl& i = *impl;
    i.args.Add(DNNL_ARG_SRC, i.pd.src_desc());
    i.args.Add(DNNL_ARG_WEIGHTS, i.weights);
    i.args.Add(DNNL_ARG_DST, i.pd.dst_desc());
    if (!i.constant_zero_point.has_value()) {
      i.args.Add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
                 memory({{1}, Dt::s32, Tag::x}, DnnlEngine(), &i.args_zero_point));
    }
    if (i.bias) i.args.Add(DNNL_ARG_BIAS, i.bias);
    i.args.AddThreadScratchpad(i.pd.scratchpad_desc());
  }));
  return std::unique_ptr<Int8Conv>(new Int8Conv(d, threads, std::move(impl)));
}

Status Int8Conv::CheckZeroPoint(int32_t x_zero_point) const {
  if (impl_->constant_zero_point.has_value() && *impl_->constant_zero_point != x_zero_point) {
    return InvalidArgument("int8 convolution built for x zero point " + std::to_string(*impl_->constant_zero_point) +
                           " run with " + std::to_string(x_zero_point));
  }
  return Status::Ok();
}

Status Int8Conv::Run(const void* x, int32_t x_zero_point, int32_t* y) const {
  ONYX_RETURN_IF_ERROR(CheckZeroPoint(x_zero_point));
  const ScopedOmpThreads scoped(threads_);
  const int64_t image_bytes = dims_.in_channels * dims_.in_h * dims_.in_w;  // 8-bit elements
  const int64_t out_image = dims_.out_channels * dims_.out_h * dims_.out_w;
  // Uninitialized: the reorder or copy writes every byte the convolution uses; the margin is only over-read.
  std::unique_ptr<uint8_t[]> nhwc(new uint8_t[static_cast<size_t>(image_bytes + kMarginPixels * dims_.in_channels)]);
  std::unique_ptr<uint8_t[]> bordered;
  if (impl_->pre_padded) {
    const Int8ConvDims& p = impl_->primitive_dims;
    bordered.reset(new uint8_t[static_cast<size_t>(p.in_channels * (p.in_h * p.in_w + kMarginPixels))]);
  }
  return DnnlCall("int8 convolution", [&] {
    int32_t zp = x_zero_point;
    memory zp_mem;
    if (!impl_->constant_zero_point.has_value()) zp_mem = memory({{1}, Dt::s32, Tag::x}, DnnlEngine(), &zp);
    for (int64_t n = 0; n < dims_.batch; ++n) {
      const uint8_t* image = static_cast<const uint8_t*>(x) + n * image_bytes;
      if (impl_->reorder_source) {
        memory from(impl_->nchw_src, DnnlEngine(), const_cast<uint8_t*>(image));
        memory to(impl_->pd.src_desc(), DnnlEngine(), nhwc.get());
        std::unordered_map<int, memory> reorder_args{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
        AddThreadScratchpad(impl_->to_nhwc_pd, reorder_args);
        impl_->to_nhwc.execute(DnnlStream(), reorder_args);
      } else {
        std::memcpy(nhwc.get(), image, static_cast<size_t>(image_bytes));
      }
      const uint8_t* source = nhwc.get();
      if (bordered != nullptr) {
        DnnlStream().wait();
        BorderImage(dims_, nhwc.get(), static_cast<uint8_t>(x_zero_point), bordered.get());
        source = bordered.get();
      }
      ExecuteImage(impl_->conv, impl_->pd, impl_->weights, impl_->bias, zp_mem, source, y + n * out_image);
    }
    DnnlStream().wait();
    SubtractSumOffsets(y);
  });
}

void Int8Conv::SubtractSumOffsets(int32_t* y) const {
  if (impl_->sum_offsets.empty()) return;
  const int64_t pixels = dims_.batch * dims_.out_h * dims_.out_w, m_count = dims_.out_channels;
  const int32_t* offsets = impl_->sum_offsets.data();
  for (int64_t p = 0; p < pixels; ++p) {
    int32_t* row = y + p * m_count;
    for (int64_t m = 0; m < m_count; ++m) {
      row[m] = static_cast<int32_t>(static_cast<uint32_t>(row[m]) - static_cast<uint32_t>(offsets[m]));
    }
  }
}

Status Int8Conv::RunNhwc(const void* x, int32_t x_zero_point, void* y) const {
  ONYX_RETURN_IF_ERROR(CheckZeroPoint(x_zero_point));
  const ScopedOmpThreads scoped(threads_);
  const int64_t image_bytes = dims_.in_channels * dims_.in_h * dims_.in_w;  // 8-bit elements
  const int64_t out_pixels = dims_.out_h * dims_.out_w;
  const int64_t out_image = dims_.out_channels * out_pixels;
  const size_t out_element = impl_->fused ? 1 : sizeof(int32_t);
  // The AMX kernels read and write whole tiles of 16 pixels: only a pixel count that is not a multiple of 16 can
  // touch memory past the last image, and only then do the source (and an 8-bit destination, which has no slack) go
  // through buffers with margin.
  const Int8ConvDims& pd_dims = impl_->primitive_dims;
  const bool ragged = impl_->amx && ((pd_dims.in_h * pd_dims.in_w) % 16 != 0 || out_pixels % 16 != 0);
  const int64_t source_bytes = pd_dims.in_channels * pd_dims.in_h * pd_dims.in_w;
  std::unique_ptr<uint8_t[]> source, destination;
  if (ragged && !impl_->pre_padded) {
    source.reset(new uint8_t[static_cast<size_t>(image_bytes + kMarginPixels * dims_.in_channels)]);
  }
  if (ragged && impl_->fused) {
    destination.reset(new uint8_t[static_cast<size_t>(out_image + kMarginPixels * dims_.out_channels)]);
  }
  // The bordered image: the calling thread's buffer, kept (no allocation per run in steady state), with margin.
  static thread_local std::vector<uint8_t> bordered;
  if (impl_->pre_padded) {
    const size_t need = static_cast<size_t>(source_bytes + kMarginPixels * dims_.in_channels);
    if (bordered.size() < need) bordered.resize(need);
  }
  static const std::string kWhat = "int8 convolution";  // built once: DnnlCall takes a std::string
  return DnnlCall(kWhat, [&] {
    std::unique_lock<std::mutex> args_lock(impl_->args_mutex, std::try_to_lock);
    int32_t zp = x_zero_point;
    memory zp_mem;  // only for a run that builds its own arguments, of a primitive with that argument
    if (args_lock.owns_lock()) {
      impl_->args_zero_point = x_zero_point;
    } else if (!impl_->constant_zero_point.has_value()) {
      zp_mem = memory({{1}, Dt::s32, Tag::x}, DnnlEngine(), &zp);
    }
    for (int64_t n = 0; n < dims_.batch; ++n) {
      const uint8_t* image = static_cast<const uint8_t*>(x) + n * image_bytes;
      if (impl_->pre_padded) {
        BorderImage(dims_, image, static_cast<uint8_t>(x_zero_point), bordered.data());
        image = bordered.data();
      } else if (source != nullptr) {
        std::memcpy(source.get(), image, static_cast<size_t>(image_bytes));
        image = source.get();
      }
      uint8_t* out = static_cast<uint8_t*>(y) + static_cast<size_t>(n * out_image) * out_element;
      void* dst = destination != nullptr ? destination.get() : out;
      if (args_lock.owns_lock()) {
        impl_->args.Set(DNNL_ARG_SRC, image);
        impl_->args.Set(DNNL_ARG_DST, dst);
        impl_->args.Execute(impl_->conv, false);
      } else {
        ExecuteImage(impl_->conv, impl_->pd, impl_->weights, impl_->bias, zp_mem, image, dst);
      }
      if (destination != nullptr) {
        DnnlStream().wait();
        std::memcpy(out, destination.get(), static_cast<size_t>(out_image));
      }
    }
    DnnlStream().wait();
    if (!impl_->fused) SubtractSumOffsets(static_cast<int32_t*>(y));
  });
}

}  // namespace onyx::kernels
