#include "kernels/float_matmul.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/dnnl_util.h"
#include "kernels/parallel_tasks.h"
#include "kernels/sgemm_packed.h"
#include "kernels/tuning_cache.h"
#include "kernels/vector_math.h"

namespace onyx::kernels {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

struct FloatMatMul::Impl {
  std::string name;  // oneDNN's implementation name, or kOwnPackedName
  // Set for onyx's own packed product (sgemm_packed.h) instead of a oneDNN primitive; shared by the products of the
  // same B built for other row or thread counts.
  std::shared_ptr<const PackedSgemm> own;
  RowPrefetch row_prefetch = RowPrefetch::kSoftware;  // how `own` reads its panels for a single row
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul primitive;
  memory weights;           // B in the primitive's layout
  bool weights_in_place = false;  // `weights` wraps the caller's B
  bool runtime_rows = false;      // built with a run-time row count (DNNL_RUNTIME_DIM_VAL): any rows per run
  std::vector<float> bias;  // empty without a bias
  // Relu applied by onyx's kernel after the primitive (n columns per row): oneDNN's relu post-op is max(x, 0), which
  // turns NaN into 0 on some instruction sets (AVX2), where the Relu operator and onyx's own epilogue keep it.
  bool relu_after = false;
  int64_t n = 0;
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

// The implementation: oneDNN's gemm-based one reads B in place; its packed brgemm kernels and onyx's own packed
// product want B reordered into a copy. The MatMul operator frees B once no product of it reads B in place, so a
// first product's packed copy replaces B (a BERT-like encoder's peak RSS is the same either way) and is taken
// wherever timing on this CPU finds it faster beyond the noise (brgemm: 6-7% on BERT's QKV and GELU products on an
// Intel Xeon with AMX, 4% of the encoder). A later product of the same B (another row count: a decoder's prompt and
// its steps) whose layout differs would hold a second copy beside the first product's: then a packed one must be at
// least kPackedMinGain faster (kernels/tuning_cache.h; the cache remembers the choice).
// ONYX_FLOAT_MATMUL_IMPL=<prefix of a oneDNN implementation name>
// ("brg", "gemm:jit"), or "onyx" for onyx's own packed product (sgemm_packed.h: MLAS's blocking; on an AVX2 AMD
// EPYC, where oneDNN offers no brgemm, it matched gemm:jit on BERT's shapes and beat it by 11% where GELU is fused),
// forces one where it exists (where not: oneDNN's first choice).
constexpr const char* kForceVariable = "ONYX_FLOAT_MATMUL_IMPL";

constexpr const char* kInPlace = "gemm:jit";
// oneDNN's in-place gemm built for any row count (CreateAnyRowCount): a primitive whose row count is given per run.
constexpr const char* kInPlaceAnyRows = "gemm:jit/any-rows";
constexpr const char* kPacked = "brg";
constexpr const char* kOwn = "onyx";  // onyx's packed product (sgemm_packed.h), also packing B into a copy
constexpr const char* kOwnPackedName = "onyx:packed_sgemm";
// onyx's packed product (the same copy of B) whose single-row loop leaves the streams to the hardware prefetchers
// (RowPrefetch::kHardware): a candidate for single-row products only.
constexpr const char* kOwnHardwarePrefetch = "onyx-hwpf";
constexpr const char* kOwnHardwarePrefetchName = "onyx:packed_sgemm_hwpf";
constexpr double kPackedMinGain = 0.10;  // a second copy of the weights for less than this is not worth it

}  // namespace

// The tuning cache's key of a product: its row class (kernels/product_rows.h: "m5" or "m65-128"), K, N, bias,
// activation and threads. "floatmm12": since a choice holds for a class of row counts; "floatmm11": since C is evicted
// before each timed run and onyx's product prefetches C's rows as it writes them; "floatmm10": since single-row
// products also time onyx's product without software prefetches; "floatmm9": since onyx's products copy a long A pass
// by pass over K; "floatmm8": since every product is timed with cold weights and, with several threads, A and C placed
// as in a model (Create); "floatmm7": since onyx's AVX-512 products pack A's rows for a 14-row tile; "floatmm6": 12
// rows; "floatmm5": since onyx's packed product prefetches its next panel; "floatmm4": since a first product's packed
// copy is taken beyond the noise (entries of the keys before, chosen under a 10% rule, are timed again); "floatmm3":
// since few-row products are timed with cold weights.
std::string FloatMatMul::TuningKey(int64_t m, int64_t k, int64_t n, bool bias, MatMulActivation activation,
                                   int threads) {
  return "floatmm12/m" + RowClassText(m) + "k" + std::to_string(k) + "n" + std::to_string(n) + "/b" +
         std::to_string(bias) + "a" + std::to_string(static_cast<int>(activation)) + "/t" + std::to_string(threads);
}

bool FloatMatMul::RunsAnyRowCount() const { return impl_->own != nullptr || impl_->runtime_rows; }

FloatMatMul::FloatMatMul(int64_t m, int threads, std::unique_ptr<Impl> impl)
    : m_(m), threads_(threads), impl_(std::move(impl)) {}

FloatMatMul::~FloatMatMul() = default;

Result<std::unique_ptr<FloatMatMul>> FloatMatMul::Build(int64_t m, int64_t k, int64_t n, const WeightsSource& b,
                                                        const float* bias, MatMulActivation activation, int threads,
                                                        KeptProducts kept, const char* want) {
  auto impl = std::make_unique<Impl>();
  const std::string wanted(want != nullptr ? want : "");
  if (wanted == kOwn || wanted == kOwnHardwarePrefetch) {
    const auto own = std::find_if(kept.begin(), kept.end(), [](const FloatMatMul* p) { return p->impl_->own; });
    if (own != kept.end()) {
      impl->own = (*own)->impl_->own;
    } else {
      ONYX_ASSIGN_OR_RETURN(const float* plain, b());
      impl->own = std::make_shared<const PackedSgemm>(k, n, plain, bias, activation);
    }
    const bool hardware = wanted == kOwnHardwarePrefetch;
    impl->row_prefetch = hardware ? RowPrefetch::kHardware : RowPrefetch::kSoftware;
    impl->name = hardware ? kOwnHardwarePrefetchName : kOwnPackedName;
    return std::unique_ptr<FloatMatMul>(new FloatMatMul(m, threads, std::move(impl)));
  }
  std::string name;
  const ScopedOmpThreads scoped(threads);
  impl->runtime_rows = wanted == kInPlaceAnyRows;
  if (impl->runtime_rows) want = kInPlace;
  ONYX_RETURN_IF_ERROR(DnnlCall("float matmul", [&] {
    const memory::dim rows = impl->runtime_rows ? DNNL_RUNTIME_DIM_VAL : m;
    const memory::desc a_md({rows, k}, Dt::f32, Tag::ab);
    const memory::desc b_md({k, n}, Dt::f32, impl->runtime_rows ? Tag::ab : Tag::any);
    const memory::desc c_md({rows, n}, Dt::f32, Tag::ab);
    dnnl::primitive_attr attr = UserScratchpadAttr();  // runs of a session may execute it at once
    if (activation == MatMulActivation::kGeluErf) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    impl->relu_after = activation == MatMulActivation::kRelu;
    impl->n = n;
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
  }));
  if (name.rfind("ref", 0) == 0) return Unsupported("oneDNN has only its reference float matmul (" + name + ")");
  // A kept product of oneDNN's whose weights have this layout shares them (read-only).
  const auto previous = std::find_if(kept.begin(), kept.end(), [&](const FloatMatMul* p) {
    return p->impl_->own == nullptr && p->impl_->weights.get_desc() == impl->pd.weights_desc();
  });
  const bool shared = previous != kept.end();
  const float* plain = nullptr;
  if (!shared) {
    ONYX_ASSIGN_OR_RETURN(plain, b());
  }
  ONYX_RETURN_IF_ERROR(DnnlCall("float matmul weights", [&] {
    if (shared) {
      impl->weights = (*previous)->impl_->weights;  // read-only: shared by both primitives
      impl->weights_in_place = (*previous)->impl_->weights_in_place;
    } else if (impl->pd.weights_desc() == memory::desc({k, n}, Dt::f32, Tag::ab)) {
      // The primitive reads B as stored (gemm-based implementations): no second copy of the weights.
      impl->weights = memory(impl->pd.weights_desc(), DnnlEngine(), const_cast<float*>(plain));
      impl->weights_in_place = true;
    } else {
      memory stored({{k, n}, Dt::f32, Tag::ab}, DnnlEngine(), const_cast<float*>(plain));
      impl->weights = memory(impl->pd.weights_desc(), DnnlEngine());
      dnnl::reorder(stored, impl->weights).execute(DnnlStream(), stored, impl->weights);
      DnnlStream().wait();
    }
    if (bias != nullptr) impl->bias.assign(bias, bias + n);
    if (!impl->runtime_rows) impl->FillArgs(impl->args);  // else memories of each run's row count (Run)
  }));
  if (impl->runtime_rows && name.rfind(kInPlace, 0) != 0) {
    return Unsupported("oneDNN offers no float matmul of a run-time row count (" + name + ")");
  }
  impl->name = impl->runtime_rows ? name + "/any-rows" : name;
  return std::unique_ptr<FloatMatMul>(new FloatMatMul(m, threads, std::move(impl)));
}

Result<std::unique_ptr<FloatMatMul>> FloatMatMul::Create(int64_t m, int64_t k, int64_t n, const float* b,
                                                         const float* bias, MatMulActivation activation, int threads,
                                                         const FloatMatMul* previous) {
  const std::vector<const FloatMatMul*> kept =
      previous != nullptr ? std::vector<const FloatMatMul*>{previous} : std::vector<const FloatMatMul*>{};
  return Create(m, k, n, WeightsSource([b]() -> Result<const float*> { return b; }), bias, activation, threads, kept);
}

Result<std::unique_ptr<FloatMatMul>> FloatMatMul::Create(int64_t m, int64_t k, int64_t n, const WeightsSource& b,
                                                         const float* bias, MatMulActivation activation, int threads,
                                                         KeptProducts kept) {
  if (m <= 0 || k <= 0 || n <= 0) return Unsupported("empty float matmul");
  if (const std::optional<std::string> forced = ForcedImplementation(kForceVariable))
    return Build(m, k, n, b, bias, activation, threads, kept, forced->c_str());
  const TuningMode mode = CurrentTuningMode();
  if (mode == TuningMode::kOff) return Build(m, k, n, b, bias, activation, threads, kept, kInPlace);
  const auto cache = TuningCache::Process();
  const std::string signature = TuningKey(m, k, n, bias != nullptr, activation, threads);
  auto build_choice = [&](const std::string& choice) {
    const char* want = choice == kPacked                ? kPacked
                       : choice == kOwn                 ? kOwn
                       : choice == kOwnHardwarePrefetch ? kOwnHardwarePrefetch
                                                        : kInPlace;
    return Build(m, k, n, b, bias, activation, threads, kept, want);
  };
  if (auto entry = cache->Find(signature, mode == TuningMode::kAlways)) {
    cache->NoteDecision(signature, *entry, false);
    return build_choice(entry->choice);
  }
  if (mode == TuningMode::kCache && !cache->MissBudgetLeft()) {
    return Build(m, k, n, b, bias, activation, threads, kept, kInPlace);
  }
  const auto start = std::chrono::steady_clock::now();
  // The candidates: oneDNN's in-place gemm (the fixed choice), its packed brgemm where it offers one for this
  // shape, and onyx's packed product. Both packed ones copy the weights: beside a previous product's copy only
  // where at least kPackedMinGain faster (see kForceVariable's comment).
  std::vector<std::string> names{kInPlace};
  std::vector<std::unique_ptr<FloatMatMul>> built;
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<FloatMatMul> in_place,
                        Build(m, k, n, b, bias, activation, threads, kept, kInPlace));
  built.push_back(std::move(in_place));
  auto packed = Build(m, k, n, b, bias, activation, threads, kept, kPacked);
  if (packed.ok() && (*packed)->implementation().rfind(kPacked, 0) == 0) {
    names.push_back(kPacked);
    built.push_back(std::move(*packed));
  }
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<FloatMatMul> own, Build(m, k, n, b, bias, activation, threads, kept, kOwn));
  names.push_back(kOwn);
  built.push_back(std::move(own));
  if (m == 1) {  // the same packed copy, read with the loads alone (RowPrefetch)
    const std::array<const FloatMatMul*, 1> own_packed{built.back().get()};
    ONYX_ASSIGN_OR_RETURN(std::unique_ptr<FloatMatMul> hardware,
                          Build(m, k, n, b, bias, activation, threads, own_packed, kOwnHardwarePrefetch));
    names.push_back(kOwnHardwarePrefetch);
    built.push_back(std::move(hardware));
  }
  // Each timed on a zero A (a product's speed does not depend on the values) into a scratch C, with its weights
  // evicted from the caches and the TLBs before each run, as a model whose weights outgrow them finds them (the
  // convolutions' rule, NchwcConv's EvictWeights). Few-row products (a decoder's step) were timed so first: timed hot,
  // a layout that streams well from memory lost to one that reads well from cache (the gains seen in the decoder,
  // 25-30% at 1 and 2 threads on an AMD Zen 3, read as 0-10% with the caches flushed only, 10-50% with the
  // translations evicted too). Since floatmm8 every product: timed on warm weights, oneDNN's brgemm won BERT's 128 x
  // 3072 x 768 product at 2 threads (1.76 ms against onyx's 1.80) and ran 2.0-2.07 ms in the model, where onyx's, whose
  // tile prefetches the next panel, ran 1.87-1.97 (Sapphire Rapids Xeon). With several threads A and C are rewritten by
  // them before each run, spread over their caches as in a model (PlaceAsWrittenBy).
  std::vector<float> a(static_cast<size_t>(m * k), 0.0f), c(static_cast<size_t>(m * n));
  const std::function<void(size_t)> before = [&](size_t i) {
    const Impl& impl = *built[i]->impl_;
    const bool own = impl.own != nullptr;
    PrepareProductTiming(a.data(), a.size() * sizeof(float), c.data(), c.size() * sizeof(float),
                         own ? static_cast<const void*>(impl.own->packed_data()) : impl.weights.get_data_handle(),
                         own ? impl.own->packed_bytes() : impl.weights.get_desc().get_size(), threads);
  };
  const std::vector<double> ms = TimeCandidates(
      built.size(), [&](size_t i) { return built[i]->Run(a.data(), c.data()); },
      std::vector<int>(built.size(), threads), 20, 5, before);
  const size_t pick =
      cache->DecideMeasured(signature, names, ms, 0, kept.empty() ? kTimingNoise : kPackedMinGain, start);
  return std::move(built[pick]);
}

Result<std::unique_ptr<FloatMatMul>> FloatMatMul::CreateAnyRowCount(int64_t m, int64_t k, int64_t n,
                                                                    const WeightsSource& b, const float* bias,
                                                                    MatMulActivation activation, int threads,
                                                                    KeptProducts kept) {
  if (m <= 0 || k <= 0 || n <= 0) return Unsupported("empty float matmul");
  if (ForcedImplementation(kForceVariable)) return Create(m, k, n, b, bias, activation, threads, kept);
  // oneDNN's in-place gemm where the class's timing found it ahead of onyx's product (the brgemm kernels, often
  // fastest, exist for fixed row counts only), else onyx's.
  const TuningMode mode = CurrentTuningMode();
  if (mode != TuningMode::kOff) {
    const auto entry = TuningCache::Process()->Find(TuningKey(m, k, n, bias != nullptr, activation, threads));
    if (entry.has_value()) {
      double own_ms = 0, in_place_ms = 0;
      for (const TunedTime& t : entry->times) {
        if (t.candidate == kOwn) own_ms = t.ms;
        if (t.candidate == kInPlace) in_place_ms = t.ms;
      }
      if (in_place_ms > 0 && own_ms > 0 && in_place_ms < own_ms) {
        auto in_place = Build(m, k, n, b, bias, activation, threads, kept, kInPlaceAnyRows);
        if (in_place.ok()) return in_place;
      }
    }
  }
  return Build(m, k, n, b, bias, activation, threads, kept, kOwn);
}

const std::string& FloatMatMul::implementation() const { return impl_->name; }

bool FloatMatMul::ReadsWeightsInPlace() const { return impl_->own == nullptr && impl_->weights_in_place; }

Status FloatMatMul::CopyWeightsTo(float* b) const {
  if (impl_->own != nullptr) {
    for (int64_t kk = 0; kk < impl_->own->k(); ++kk) impl_->own->GetRow(kk, b + kk * impl_->own->n());
    return Status::Ok();
  }
  return DnnlCall("float matmul weights", [&] {
    const memory::dims& dims = impl_->pd.weights_desc().dims();
    memory plain({dims, Dt::f32, Tag::ab}, DnnlEngine(), b);
    dnnl::reorder(impl_->weights, plain).execute(DnnlStream(), impl_->weights, plain);
    DnnlStream().wait();
  });
}

Status FloatMatMul::Run(int64_t rows, const float* a, float* c) const {
  if (impl_->own != nullptr) {
    impl_->own->Run(rows, a, c, threads_, false, impl_->row_prefetch);
    return Status::Ok();
  }
  if (rows != m_ && !impl_->runtime_rows) {
    return Internal("float matmul built for " + std::to_string(m_) + " rows run on " + std::to_string(rows));
  }
  if (impl_->runtime_rows) {
    const int64_t k = impl_->pd.weights_desc().dims()[0], n = impl_->n;
    const ScopedOmpThreads scoped(threads_);
    ONYX_RETURN_IF_ERROR(DnnlCall("float matmul", [&] {
      std::unordered_map<int, memory> args{
          {DNNL_ARG_SRC, memory({{rows, k}, Dt::f32, Tag::ab}, DnnlEngine(), const_cast<float*>(a))},
          {DNNL_ARG_WEIGHTS, impl_->weights},
          {DNNL_ARG_DST, memory({{rows, n}, Dt::f32, Tag::ab}, DnnlEngine(), c)}};
      if (!impl_->bias.empty()) {
        args.emplace(DNNL_ARG_BIAS,
                     memory({{1, n}, Dt::f32, Tag::ab}, DnnlEngine(), const_cast<float*>(impl_->bias.data())));
      }
      AddThreadScratchpad(impl_->pd, args);
      impl_->primitive.execute(DnnlStream(), args);
      DnnlStream().wait();
    }));
    if (impl_->relu_after) Relu(c, c, rows * n);
    return Status::Ok();
  }
  const ScopedOmpThreads scoped(threads_);
  ONYX_RETURN_IF_ERROR(DnnlCall("float matmul", [&] {
    std::unique_lock<std::mutex> lock(impl_->args_mutex, std::try_to_lock);
    DnnlArgs local;
    if (!lock.owns_lock()) impl_->FillArgs(local);
    DnnlArgs& args = lock.owns_lock() ? impl_->args : local;
    args.Set(DNNL_ARG_SRC, a);
    args.Set(DNNL_ARG_DST, c);
    args.Execute(impl_->primitive);
  }));
  if (impl_->relu_after) {
    const int64_t n = impl_->n, parts = std::min<int64_t>(threads_, m_);
    RunTasks(parts, threads_, [&](int64_t p) {
      const int64_t r0 = p * m_ / parts, r1 = (p + 1) * m_ / parts;
      Relu(c + r0 * n, c + r0 * n, (r1 - r0) * n);
    });
  }
  return Status::Ok();
}

}  // namespace onyx::kernels
