#include "kernels/float_matmul.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/dnnl_util.h"
#include "kernels/tuning_cache.h"

namespace onyx::kernels {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

struct FloatMatMul::Impl {
  std::string name;  // oneDNN's implementation name
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul primitive;
  memory weights;           // B in the primitive's layout
  std::vector<float> bias;  // empty without a bias
  // The arguments, built once (no allocation per run); a run that finds them taken builds its own.
  std::mutex args_mutex;
  DnnlArgs args;

  void FillArgs(DnnlArgs& a) const {
    a.Add(DNNL_ARG_SRC, pd.src_desc());
    a.Add(DNNL_ARG_WEIGHTS, weights);
    if (!bias.empty()) {
      a.Add(DNNL_ARG_BIAS, pd.bias_desc());
      a.Set(DNNL_ARG_BIAS, bias.data());
    }
    a.Add(DNNL_ARG_DST, pd.dst_desc());
    a.AddThreadScratchpad(pd.scratchpad_desc());
  }
};

namespace {

// The implementation: oneDNN's gemm-based one reads B in place, so the weights are not held twice; its packed
// brgemm kernels want B reordered into a copy (all of them: BERT-like encoder 700 MB peak instead of 406, ONNX
// Runtime's 634) and are 5-17% faster on BERT's shapes here. So brgemm is taken per shape only where timing on this
// CPU finds it at least kPackedMinGain faster (kernels/tuning_cache.h; the cache remembers the choice), which keeps
// the second copy to the shapes that pay for it. ONYX_FLOAT_MATMUL_IMPL=<prefix of a oneDNN implementation name>
// ("brg", "gemm:jit") forces one where oneDNN offers it (where not: oneDNN's first choice). Read once.
const char* ForcedImplementation() {
  static const std::string value = [] {
    const char* v = std::getenv("ONYX_FLOAT_MATMUL_IMPL");
    return std::string(v != nullptr ? v : "");
  }();
  return value.empty() ? nullptr : value.c_str();
}

constexpr const char* kInPlace = "gemm:jit";
constexpr const char* kPacked = "brg";
constexpr double kPackedMinGain = 0.10;  // a second copy of the weights for less than this is not worth it

}  // namespace

FloatMatMul::FloatMatMul(int64_t m, int threads, std::unique_ptr<Impl> impl)
    : m_(m), threads_(threads), impl_(std::move(impl)) {}

FloatMatMul::~FloatMatMul() = default;

Result<std::unique_ptr<FloatMatMul>> FloatMatMul::Build(int64_t m, int64_t k, int64_t n, const float* b,
                                                        const float* bias, MatMulActivation activation, int threads,
                                                        const FloatMatMul* previous, const char* want) {
  auto impl = std::make_unique<Impl>();
  std::string name;
  const ScopedOmpThreads scoped(threads);
  ONYX_RETURN_IF_ERROR(DnnlCall("float matmul", [&] {
    const memory::desc a_md({m, k}, Dt::f32, Tag::ab);
    const memory::desc b_md({k, n}, Dt::f32, Tag::any);
    const memory::desc c_md({m, n}, Dt::f32, Tag::ab);
    dnnl::primitive_attr attr = UserScratchpadAttr();  // runs of a session may execute it at once
    if (activation == MatMulActivation::kGeluErf) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    const auto desc = bias != nullptr ? dnnl::matmul::desc(a_md, b_md, memory::desc({1, n}, Dt::f32, Tag::ab), c_md)
                                      : dnnl::matmul::desc(a_md, b_md, c_md);
    impl->pd = dnnl::matmul::primitive_desc(desc, attr, DnnlEngine());
    if (want != nullptr) {
      // The first implementation of that name, else oneDNN's own first choice.
      const dnnl::matmul::primitive_desc first = impl->pd;
      bool found = false;
      do {
        found = std::string(impl->pd.impl_info_str()).rfind(want, 0) == 0;
      } while (!found && impl->pd.next_impl());
      if (!found) impl->pd = first;
    }
    name = impl->pd.impl_info_str();
    if (name.rfind("ref", 0) == 0) return;
    impl->primitive = dnnl::matmul(impl->pd);
    if (previous != nullptr && previous->impl_->weights.get_desc() == impl->pd.weights_desc()) {
      impl->weights = previous->impl_->weights;  // read-only: shared by both primitives
    } else if (impl->pd.weights_desc() == memory::desc({k, n}, Dt::f32, Tag::ab)) {
      // The primitive reads B as stored (gemm-based implementations): no second copy of the weights.
      impl->weights = memory(impl->pd.weights_desc(), DnnlEngine(), const_cast<float*>(b));
    } else {
      memory plain({{k, n}, Dt::f32, Tag::ab}, DnnlEngine(), const_cast<float*>(b));
      impl->weights = memory(impl->pd.weights_desc(), DnnlEngine());
      dnnl::reorder(plain, impl->weights).execute(DnnlStream(), plain, impl->weights);
      DnnlStream().wait();
    }
    if (bias != nullptr) impl->bias.assign(bias, bias + n);
    impl->FillArgs(impl->args);
  }));
  if (name.rfind("ref", 0) == 0) return Unsupported("oneDNN has only its reference float matmul (" + name + ")");
  impl->name = name;
  return std::unique_ptr<FloatMatMul>(new FloatMatMul(m, threads, std::move(impl)));
}

Result<std::unique_ptr<FloatMatMul>> FloatMatMul::Create(int64_t m, int64_t k, int64_t n, const float* b,
                                                         const float* bias, MatMulActivation activation, int threads,
                                                         const FloatMatMul* previous) {
  if (m <= 0 || k <= 0 || n <= 0) return Unsupported("empty float matmul");
  if (const char* forced = ForcedImplementation())
    return Build(m, k, n, b, bias, activation, threads, previous, forced);
  const TuningMode mode = CurrentTuningMode();
  if (mode == TuningMode::kOff) return Build(m, k, n, b, bias, activation, threads, previous, kInPlace);
  const auto cache = TuningCache::Process();
  const std::string signature = "floatmm/m" + std::to_string(m) + "k" + std::to_string(k) + "n" + std::to_string(n) +
                                "/b" + std::to_string(bias != nullptr) + "a" +
                                std::to_string(static_cast<int>(activation)) + "/t" + std::to_string(threads);
  if (auto entry = cache->Find(signature, mode == TuningMode::kAlways)) {
    cache->NoteDecision(signature, *entry, false);
    return Build(m, k, n, b, bias, activation, threads, previous, entry->choice == kPacked ? kPacked : kInPlace);
  }
  if (mode == TuningMode::kCache && !cache->MissBudgetLeft()) {
    return Build(m, k, n, b, bias, activation, threads, previous, kInPlace);
  }
  const auto start = std::chrono::steady_clock::now();
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<FloatMatMul> in_place,
                        Build(m, k, n, b, bias, activation, threads, previous, kInPlace));
  auto packed = Build(m, k, n, b, bias, activation, threads, previous, kPacked);
  TuningEntry entry{kInPlace, {}};
  if (packed.ok() && (*packed)->implementation().rfind(kPacked, 0) == 0) {
    // Both timed on a zero A (a product's speed does not depend on the values) into a scratch C.
    std::vector<float> a(static_cast<size_t>(m * k), 0.0f), c(static_cast<size_t>(m * n));
    const FloatMatMul* candidates[2] = {in_place.get(), packed->get()};
    const std::vector<double> ms =
        TimeCandidates(2, [&](size_t i) { return candidates[i]->Run(a.data(), c.data()); }, {threads, threads});
    if (std::isfinite(ms[0]) && std::isfinite(ms[1])) {
      const size_t pick = PickFastest(ms, 0, kPackedMinGain);
      entry = TuningEntry{pick == 1 ? kPacked : kInPlace, {{kInPlace, ms[0]}, {kPacked, ms[1]}}};
      (void)cache->Record(signature, entry);  // a cache that cannot be written was warned about; the run goes on
    }
  } else {
    (void)cache->Record(signature, entry);  // oneDNN has no packed kernel for this shape on this CPU
  }
  cache->NoteDecision(signature, entry, true);
  cache->SpendMissTime(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  if (entry.choice == kPacked) return std::move(*packed);
  return in_place;
}

const std::string& FloatMatMul::implementation() const { return impl_->name; }

Status FloatMatMul::Run(const float* a, float* c) const {
  const ScopedOmpThreads scoped(threads_);
  return DnnlCall("float matmul", [&] {
    std::unique_lock<std::mutex> lock(impl_->args_mutex, std::try_to_lock);
    DnnlArgs local;
    if (!lock.owns_lock()) impl_->FillArgs(local);
    DnnlArgs& args = lock.owns_lock() ? impl_->args : local;
    args.Set(DNNL_ARG_SRC, a);
    args.Set(DNNL_ARG_DST, c);
    args.Execute(impl_->primitive);
  });
}

}  // namespace onyx::kernels
