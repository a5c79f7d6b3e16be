#include "kernels/int8_conv.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
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
};

namespace {
constexpr int64_t kMarginPixels = 64;
}  // namespace

Int8Conv::Int8Conv(const Int8ConvDims& dims, int threads, std::unique_ptr<Impl> impl)
    : dims_(dims), threads_(threads), impl_(std::move(impl)) {}

Int8Conv::~Int8Conv() = default;

const char* Int8Conv::implementation() const { return impl_->pd.impl_info_str(); }

bool FusedRequantIsExact(const int8_t* weights, int64_t out_channels, int64_t per_channel,
                         const std::vector<int32_t>& bias, int32_t source_low, int32_t source_high) {
  // Each term (x - x_zero_point) * w lies in [low * w, high * w] (w > 0) or [high * w, low * w] (w < 0): the sum
  // of a channel lies within -(|low| P + high N) .. high P + |low| N, P and N the sums of its positive weights and
  // of its negative weights' magnitudes. float(acc) + float(bias) is then float(acc + bias): both terms exact.
  constexpr int64_t kExactFloat = int64_t{1} << 24;
  const int64_t low = std::abs(static_cast<int64_t>(source_low)), high = source_high;
  for (int64_t m = 0; m < out_channels; ++m) {
    int64_t positive = 0, negative = 0;
    const int8_t* w = weights + m * per_channel;
    for (int64_t k = 0; k < per_channel; ++k) (w[k] > 0 ? positive : negative) += std::abs(static_cast<int32_t>(w[k]));
    const int64_t b = bias.empty() ? 0 : std::abs(static_cast<int64_t>(bias[static_cast<size_t>(m)]));
    if (std::max(high * positive + low * negative, low * positive + high * negative) >= kExactFloat ||
        b >= kExactFloat) {
      return false;
    }
  }
  return true;
}

bool Int8Conv::fused_requant() const { return impl_->fused; }

namespace {

bool IsAmx(const dnnl::convolution_forward::primitive_desc& pd) {
  return std::string(pd.impl_info_str()).find("amx") != std::string::npos;
}

// Runs `conv` (of `pd`) on one image: src -> dst, with x's zero point and, when given, the bias; on the calling
// thread's scratchpad.
void ExecuteImage(const dnnl::convolution_forward& conv, const dnnl::convolution_forward::primitive_desc& pd,
                  const memory& weights, const memory& bias, const memory& zero_point, const void* src, void* dst) {
  std::unordered_map<int, memory> args{{DNNL_ARG_SRC, memory(pd.src_desc(), DnnlEngine(), const_cast<void*>(src))},
                                       {DNNL_ARG_WEIGHTS, weights},
                                       {DNNL_ARG_DST, memory(pd.dst_desc(), DnnlEngine(), dst)},
                                       {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_point}};
  if (bias) args.emplace(DNNL_ARG_BIAS, bias);
  AddThreadScratchpad(pd, args);
  conv.execute(DnnlStream(), args);
}

std::string Signature(const Int8ConvDims& d, const memory::desc& src, bool fused, int threads) {
  auto dim = [](int64_t a, int64_t b) { return std::to_string(a) + "x" + std::to_string(b); };
  return "int8conv/" + std::string(src.data_type() == Dt::s8 ? "s8" : "u8") + (fused ? "/fused" : "/s32") + "/n" +
         std::to_string(d.batch) + "/c" + std::to_string(d.in_channels) + "/m" + std::to_string(d.out_channels) + "/g" +
         std::to_string(d.group) + "/in" + dim(d.in_h, d.in_w) + "/k" + dim(d.kernel_h, d.kernel_w) + "/s" +
         dim(d.stride_h, d.stride_w) + "/d" + dim(d.dilation_h, d.dilation_w) + "/p" + dim(d.pad_top, d.pad_left) +
         "-" + dim(d.pad_bottom, d.pad_right) + "/t" + std::to_string(threads);
}

// An AMX kernel runs on a unit that powers down while no AMX code runs: the first AMX convolution after other
// work pays its warm-up, which timing the candidates back to back never sees. Measured on this Xeon: in
// MobileNet-v2, the first AMX layer took ~0.05 ms more in the model than timed alone (features.15, 1x1 160 -> 960
// on 7x7: 0.080 ms against 0.022 timed, 0.031 on VNNI; with it on VNNI, features.18, 320 -> 1280: 0.087 against
// 0.038), the AMX layers after it their timed cost. So AMX needs a clear win, by more than a margin of the order of
// that warm-up, until some layer has taken it by such a win: from then on the process runs AMX layers anyway (their
// unit warm in every run, as in ResNet-50, whose stem and 3x3 layers win by 0.1 to 0.25 ms), and the plain fastest
// is taken as before (AMX unless VNNI beats it by 3%). MobileNet's 1x1 layers win by 0 to 26 us: all VNNI. Only
// the speed depends on the choice (both kernels are exact), and so on the order in which layers are created.
constexpr double kAmxWarmupMarginMs = 0.03;
std::atomic<bool> amx_taken_clearly{false};

// 0 (AMX) or 1 (VNNI) from the two measured times; `fallback` when either is missing.
size_t AmxOrVnni(const std::vector<TunedTime>& times, size_t fallback) {
  double amx = -1, vnni = -1;
  for (const TunedTime& t : times) {
    if (t.candidate == "amx") amx = t.ms;
    if (t.candidate == "vnni") vnni = t.ms;
  }
  if (!(amx >= 0 && vnni >= 0 && std::isfinite(amx) && std::isfinite(vnni))) return fallback;
  if (amx + kAmxWarmupMarginMs < vnni) {
    amx_taken_clearly.store(true, std::memory_order_relaxed);
    return 0;
  }
  if (amx_taken_clearly.load(std::memory_order_relaxed)) return PickFastest({amx, vnni}, 0);
  return 1;
}

}  // namespace

// oneDNN offers its AMX kernels first wherever the CPU has AMX, but they pay a tile configuration per call that small
// convolutions (MobileNet's 1x1 layers of a few channels) never earn back, while the big ones run up to 2x faster
// than on VNNI. Which wins depends on the shape and the CPU, so the two are timed on the real shape (the tuning
// cache, kernels/tuning_cache.h, remembers the choice per CPU model); the fixed rule is oneDNN's order.
dnnl::convolution_forward::primitive_desc Int8Conv::ChooseImplementation(
    const Int8ConvDims& d, const dnnl::convolution_forward::primitive_desc& first, memory plain_weights, bool fused,
    int threads) {
  const TuningMode mode = CurrentTuningMode();
  if (mode == TuningMode::kOff || !IsAmx(first)) return first;
  dnnl::convolution_forward::primitive_desc alternative = first;
  bool found = false;
  while (alternative.next_impl()) {
    const std::string name = alternative.impl_info_str();
    if (name.find("amx") == std::string::npos && name.rfind("ref", 0) != 0) {
      found = true;
      break;
    }
  }
  if (!found) return first;
  const auto cache = TuningCache::Process();
  const std::string signature = Signature(d, first.src_desc(), fused, threads);
  const char* kNames[2] = {"amx", "vnni"};
  if (auto entry = cache->Find(signature, mode == TuningMode::kAlways)) {
    // The times decide (entries recorded before the warm-up margin hold the plain fastest as their choice).
    entry->choice = kNames[AmxOrVnni(entry->times, entry->choice == kNames[1] ? 1 : 0)];
    cache->NoteDecision(signature, *entry, false);
    return entry->choice == kNames[1] ? alternative : first;
  }
  if (mode == TuningMode::kCache && !cache->MissBudgetLeft()) return first;
  const auto start = std::chrono::steady_clock::now();
  const dnnl::convolution_forward::primitive_desc pds[2] = {first, alternative};
  dnnl::convolution_forward convs[2];
  memory weights[2];
  for (int i = 0; i < 2; ++i) {
    convs[i] = dnnl::convolution_forward(pds[i]);
    weights[i] = memory(pds[i].weights_desc(), DnnlEngine());
    dnnl::reorder(plain_weights, weights[i]).execute(DnnlStream(), plain_weights, weights[i]);
  }
  // Scratch images with the AMX margin (OutputSlack); their values do not change the time of integer products.
  const size_t src_bytes = static_cast<size_t>(d.in_channels * (d.in_h * d.in_w + kMarginPixels));
  const size_t dst_bytes = static_cast<size_t>(d.out_channels * (d.out_h * d.out_w + kMarginPixels)) * sizeof(int32_t);
  std::vector<uint8_t> src(src_bytes, 1), dst(dst_bytes);
  int32_t zp = 0;
  memory zp_mem({{1}, Dt::s32, Tag::x}, DnnlEngine(), &zp);
  memory bias;
  if (first.bias_desc().get_size() > 0) {
    bias = memory(first.bias_desc(), DnnlEngine());
    std::memset(bias.get_data_handle(), 0, first.bias_desc().get_size());
  }
  const std::vector<double> ms =
      TimeCandidates(2,
                     [&](size_t i) {
                       return DnnlCall("int8 convolution (timing)", [&] {
                         ExecuteImage(convs[i], pds[i], weights[i], bias, zp_mem, src.data(), dst.data());
                         DnnlStream().wait();
                       });
                     },
                     {threads, threads});
  cache->SpendMissTime(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  TuningEntry entry{"", {}};
  for (size_t i = 0; i < 2; ++i) {
    if (std::isfinite(ms[i])) entry.times.push_back({kNames[i], ms[i]});
  }
  const size_t pick = AmxOrVnni(entry.times, PickFastest(ms, 0));
  entry.choice = kNames[pick];
  if (std::isfinite(ms[pick])) {
    (void)cache->Record(signature, entry);  // a cache that cannot be written was warned about; the run goes on
    cache->NoteDecision(signature, entry, true);
  }
  return pds[pick];
}

Result<std::unique_ptr<Int8Conv>> Int8Conv::Create(const Int8ConvDims& d, bool signed_source, const int8_t* weights,
                                                   int threads, const Int8ConvRequant* requant) {
  auto impl = std::make_unique<Impl>();
  std::string impl_name;
  const ScopedOmpThreads scoped(threads);
  ONYX_RETURN_IF_ERROR(DnnlCall("int8 convolution", [&] {
    const Dt src_type = signed_source ? Dt::s8 : Dt::u8;
    // One image per primitive call (see OutputSlack).
    const memory::dims src_dims{1, d.in_channels, d.in_h, d.in_w};
    const memory::dims dst_dims{1, d.out_channels, d.out_h, d.out_w};
    const int64_t cg = d.in_channels / d.group, mg = d.out_channels / d.group;
    const memory::dims w_dims = d.group == 1 ? memory::dims{d.out_channels, cg, d.kernel_h, d.kernel_w}
                                             : memory::dims{d.group, mg, cg, d.kernel_h, d.kernel_w};
    const memory::desc src_md(src_dims, src_type, Tag::nhwc);
    const Dt dst_type = requant == nullptr ? Dt::s32 : requant->signed_output ? Dt::s8 : Dt::u8;
    const memory::desc dst_md(dst_dims, dst_type, Tag::nhwc);
    const memory::desc w_any(w_dims, Dt::s8, Tag::any);
    const bool with_bias = requant != nullptr && !requant->bias.empty();
    const memory::desc bias_md({d.out_channels}, Dt::s32, Tag::x);
    const auto desc =
        with_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                    dnnl::algorithm::convolution_direct, src_md, w_any, bias_md, dst_md,
                                                    {d.stride_h, d.stride_w}, {d.dilation_h - 1, d.dilation_w - 1},
                                                    {d.pad_top, d.pad_left}, {d.pad_bottom, d.pad_right})
                  : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                    dnnl::algorithm::convolution_direct, src_md, w_any, dst_md,
                                                    {d.stride_h, d.stride_w}, {d.dilation_h - 1, d.dilation_w - 1},
                                                    {d.pad_top, d.pad_left}, {d.pad_bottom, d.pad_right});
    dnnl::primitive_attr attr = UserScratchpadAttr();  // runs of a session may execute it at once
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    if (requant != nullptr) {
      attr.set_output_scales(requant->scales.size() == 1 ? 0 : 1 << 1, requant->scales);
      if (requant->zero_point != 0) {
        // Round half to even first, then add the zero point to the integer value (see Int8ConvRequant).
        dnnl::post_ops ops;
        ops.append_eltwise(1.f, dnnl::algorithm::eltwise_round, 0.f, 0.f);
        ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, 1.f, static_cast<float>(requant->zero_point));
        attr.set_post_ops(ops);
      }
      impl->fused = true;
      if (with_bias) {
        impl->bias = memory(bias_md, DnnlEngine());
        std::memcpy(impl->bias.get_data_handle(), requant->bias.data(), requant->bias.size() * sizeof(int32_t));
      }
    }
    impl->pd = dnnl::convolution_forward::primitive_desc(desc, attr, DnnlEngine());
    impl_name = impl->pd.impl_info_str();
    if (impl_name.rfind("ref", 0) == 0) return;  // refused below
    memory plain({w_dims, Dt::s8, d.group == 1 ? Tag::oihw : Tag::goihw}, DnnlEngine(), const_cast<int8_t*>(weights));
    impl->pd = ChooseImplementation(d, impl->pd, plain, requant != nullptr, threads);
    impl_name = impl->pd.impl_info_str();
    impl->conv = dnnl::convolution_forward(impl->pd);
    impl->weights = memory(impl->pd.weights_desc(), DnnlEngine());
    dnnl::reorder(plain, impl->weights).execute(DnnlStream(), plain, impl->weights);
    impl->reorder_source = d.in_channels > 1 && d.in_h * d.in_w > 1;
    if (impl->reorder_source) {
      impl->nchw_src = memory::desc(src_dims, src_type, Tag::nchw);
      impl->to_nhwc_pd =
          dnnl::reorder::primitive_desc(DnnlEngine(), impl->nchw_src, DnnlEngine(), src_md, UserScratchpadAttr());
      impl->to_nhwc = dnnl::reorder(impl->to_nhwc_pd);
    }
    DnnlStream().wait();
  }));
  if (impl_name.rfind("ref", 0) == 0) {
    return Unsupported("oneDNN has only its reference int8 convolution (" + impl_name + ") for this shape");
  }
  impl->amx = IsAmx(impl->pd);
  ONYX_RETURN_IF_ERROR(DnnlCall("int8 convolution arguments", [&] {
    Impl& i = *impl;
    i.args.Add(DNNL_ARG_SRC, i.pd.src_desc());
    i.args.Add(DNNL_ARG_WEIGHTS, i.weights);
    i.args.Add(DNNL_ARG_DST, i.pd.dst_desc());
    i.args.Add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
               memory({{1}, Dt::s32, Tag::x}, DnnlEngine(), &i.args_zero_point));
    if (i.bias) i.args.Add(DNNL_ARG_BIAS, i.bias);
    i.args.AddThreadScratchpad(i.pd.scratchpad_desc());
  }));
  return std::unique_ptr<Int8Conv>(new Int8Conv(d, threads, std::move(impl)));
}

Status Int8Conv::Run(const void* x, int32_t x_zero_point, int32_t* y) const {
  const ScopedOmpThreads scoped(threads_);
  const int64_t image_bytes = dims_.in_channels * dims_.in_h * dims_.in_w;  // 8-bit elements
  const int64_t out_image = dims_.out_channels * dims_.out_h * dims_.out_w;
  // Uninitialized: the reorder or copy writes every byte the convolution uses; the margin is only over-read.
  std::unique_ptr<uint8_t[]> nhwc(new uint8_t[static_cast<size_t>(image_bytes + kMarginPixels * dims_.in_channels)]);
  return DnnlCall("int8 convolution", [&] {
    int32_t zp = x_zero_point;
    memory zp_mem({{1}, Dt::s32, Tag::x}, DnnlEngine(), &zp);
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
      ExecuteImage(impl_->conv, impl_->pd, impl_->weights, impl_->bias, zp_mem, nhwc.get(), y + n * out_image);
    }
    DnnlStream().wait();
  });
}

Status Int8Conv::RunNhwc(const void* x, int32_t x_zero_point, void* y) const {
  const ScopedOmpThreads scoped(threads_);
  const int64_t image_bytes = dims_.in_channels * dims_.in_h * dims_.in_w;  // 8-bit elements
  const int64_t out_pixels = dims_.out_h * dims_.out_w;
  const int64_t out_image = dims_.out_channels * out_pixels;
  const size_t out_element = impl_->fused ? 1 : sizeof(int32_t);
  // The AMX kernels read and write whole tiles of 16 pixels: only a pixel count that is not a multiple of 16 can
  // touch memory past the last image, and only then do the source (and an 8-bit destination, which has no slack) go
  // through buffers with margin.
  const bool ragged = impl_->amx && ((dims_.in_h * dims_.in_w) % 16 != 0 || out_pixels % 16 != 0);
  std::unique_ptr<uint8_t[]> source, destination;
  if (ragged) {
    source.reset(new uint8_t[static_cast<size_t>(image_bytes + kMarginPixels * dims_.in_channels)]);
    if (impl_->fused)
      destination.reset(new uint8_t[static_cast<size_t>(out_image + kMarginPixels * dims_.out_channels)]);
  }
  static const std::string kWhat = "int8 convolution";  // built once: DnnlCall takes a std::string
  return DnnlCall(kWhat, [&] {
    std::unique_lock<std::mutex> args_lock(impl_->args_mutex, std::try_to_lock);
    int32_t zp = x_zero_point;
    memory zp_mem;  // only for a run that builds its own arguments
    if (args_lock.owns_lock()) {
      impl_->args_zero_point = x_zero_point;
    } else {
      zp_mem = memory({{1}, Dt::s32, Tag::x}, DnnlEngine(), &zp);
    }
    for (int64_t n = 0; n < dims_.batch; ++n) {
      const uint8_t* image = static_cast<const uint8_t*>(x) + n * image_bytes;
      if (source != nullptr) {
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
  });
}

}  // namespace onyx::kernels
