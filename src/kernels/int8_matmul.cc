#include "kernels/int8_matmul.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kernels/dnnl_util.h"
#include "kernels/int8_gemm.h"
#include "kernels/int8_gemm_vnni.h"
#include "kernels/parallel_tasks.h"
#include "kernels/tuning_cache.h"

namespace onyx::kernels {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

namespace {

// ONYX_INT8_MATMUL_IMPL=dnnl|onyx forces one implementation (tests, measurements); unset: the timed choice.
constexpr const char* kForceVariable = "ONYX_INT8_MATMUL_IMPL";

constexpr const char* kDnnl = "dnnl";
constexpr const char* kOwn = "onyx";  // kernels/int8_gemm_vnni.h

}  // namespace

struct Int8MatMul::Impl {
  std::shared_ptr<const Int8VnniGemm> own;  // set: onyx's VNNI product runs instead of the primitive (shared by the
                                            // products of the same B for other row or thread counts)
  std::string name;                   // oneDNN's implementation, or kOwn
  int64_t k = 0, n = 0;
  int64_t padded_k = 0;  // > 0: B padded to this depth with zero rows, A's rows padded per run (Int8PadsDepth)
  bool split = false;    // weights stacked as [B_lo; B_hi] (kernels/int8_gemm.h): A is read twice, 2k columns
  dnnl::matmul::primitive_desc pd;
  dnnl::matmul primitive;
  memory weights;
  // The arguments, built once (no allocation per run: issue 18); a run that finds them taken builds its own.
  std::mutex args_mutex;
  DnnlArgs args;

  void FillArgs(DnnlArgs& a) const {
    a.Add(DNNL_ARG_SRC, pd.src_desc());
    a.Add(DNNL_ARG_WEIGHTS, weights);
    a.Add(DNNL_ARG_DST, pd.dst_desc());
    a.Add(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, memory::desc({1}, Dt::s32, Tag::x));
    a.AddThreadScratchpad(pd.scratchpad_desc());
  }
};

Int8MatMul::Int8MatMul(int64_t m, bool signed_a, int threads, std::unique_ptr<Impl> impl)
    : m_(m), signed_a_(signed_a), threads_(threads), impl_(std::move(impl)) {}

Int8MatMul::~Int8MatMul() = default;

namespace {

// How oneDNN's product stores B: stacked as [B_lo; B_hi] (split, kernels/int8_gemm.h Int8WeightsNeedSplit), or K padded
// with zero rows to `padded_k` (Int8PadsDepth; A's rows padded per run); `depth`: the K of the primitive.
struct DnnlWeightsLayout {
  bool split = false;
  int64_t padded_k = 0;
  int64_t depth = 0;
};
DnnlWeightsLayout DnnlLayout(int64_t k, int64_t n, bool signed_a, const int8_t* b) {
  DnnlWeightsLayout layout;
  layout.split = !signed_a && Int8WeightsNeedSplit(b, k, n, n);
  if (!signed_a && !layout.split && Int8PadsDepth(k)) layout.padded_k = (k + 3) / 4 * 4;
  layout.depth = layout.split ? 2 * k : layout.padded_k > 0 ? layout.padded_k : k;
  return layout;
}

// oneDNN's int8 matmul of an [m, depth] A by B, int32 C, A's zero point given at run time (created on the calling
// thread's thread count: oneDNN's pick may depend on it). Inside DnnlCall.
dnnl::matmul::primitive_desc DnnlProductDesc(int64_t m, int64_t depth, int64_t n, bool signed_a) {
  const memory::desc a_md({m, depth}, signed_a ? Dt::s8 : Dt::u8, Tag::ab);
  const memory::desc b_md({depth, n}, Dt::s8, Tag::any);
  const memory::desc c_md({m, n}, Dt::s32, Tag::ab);
  dnnl::primitive_attr attr = UserScratchpadAttr();  // runs of a session may execute it at once
  attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), attr, DnnlEngine());
}

// The name of the implementation oneDNN picks for the product (part of the tuning key), from its primitive
// descriptor alone: no kernel generated, no weights reordered (a cached choice of onyx's product then costs neither).
Result<std::string> DnnlImplementationName(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                           int threads) {
  const ScopedOmpThreads scoped(threads);  // as BuildDnnl
  const DnnlWeightsLayout layout = DnnlLayout(k, n, signed_a, b);
  std::string name;
  ONYX_RETURN_IF_ERROR(
      DnnlCall("int8 matmul", [&] { name = DnnlProductDesc(m, layout.depth, n, signed_a).impl_info_str(); }));
  return name;
}

}  // namespace

Result<std::unique_ptr<Int8MatMul>> Int8MatMul::BuildDnnl(int64_t m, int64_t k, int64_t n, bool signed_a,
                                                          const int8_t* b, int threads, KeptProducts kept) {
  auto impl = std::make_unique<Impl>();
  impl->k = k;
  impl->n = n;
  const DnnlWeightsLayout layout = DnnlLayout(k, n, signed_a, b);
  impl->split = layout.split;
  impl->padded_k = layout.padded_k;
  std::string name;
  const ScopedOmpThreads scoped(threads);
  ONYX_RETURN_IF_ERROR(DnnlCall("int8 matmul", [&] {
    impl->pd = DnnlProductDesc(m, layout.depth, n, signed_a);
    name = impl->pd.impl_info_str();
    if (name.rfind("ref", 0) == 0) return;
    impl->primitive = dnnl::matmul(impl->pd);
    // A kept primitive's weights of this layout (another row count) are these (read-only: shared).
    const auto same = std::find_if(kept.begin(), kept.end(), [&](const Int8MatMul* p) {
      const Impl& other = *p->impl_;
      return other.own == nullptr && other.split == impl->split && other.padded_k == impl->padded_k &&
             other.weights.get_desc() == impl->pd.weights_desc();
    });
    if (same != kept.end()) {
      impl->weights = (*same)->impl_->weights;
    } else {
      // B as the primitive reads it: padded with zero rows, or stacked as its two halves.
      std::vector<int8_t> stored;
      if (layout.padded_k > 0) {
        stored.assign(static_cast<size_t>(layout.padded_k * n), 0);
        std::copy(b, b + k * n, stored.begin());
      } else if (layout.split) {
        stored.resize(static_cast<size_t>(2 * k * n));
        Int8StackSplitWeights(b, k, n, n, 1, stored.data());
      }
      memory plain({{layout.depth, n}, Dt::s8, Tag::ab}, DnnlEngine(),
                   const_cast<int8_t*>(stored.empty() ? b : stored.data()));
      impl->weights = memory(impl->pd.weights_desc(), DnnlEngine());
      dnnl::reorder(plain, impl->weights).execute(DnnlStream(), plain, impl->weights);
      DnnlStream().wait();
    }
    impl->FillArgs(impl->args);
  }));
  if (name.rfind("ref", 0) == 0) return Unsupported("oneDNN has only its reference int8 matmul (" + name + ")");
  impl->name = name;
  return std::unique_ptr<Int8MatMul>(new Int8MatMul(m, signed_a, threads, std::move(impl)));
}

std::unique_ptr<Int8MatMul> Int8MatMul::BuildOwn(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                                 int threads, KeptProducts kept) {
  auto impl = std::make_unique<Impl>();
  impl->k = k;
  impl->n = n;
  const auto own = std::find_if(kept.begin(), kept.end(), [](const Int8MatMul* p) { return p->impl_->own; });
  if (own != kept.end()) {
    impl->own = (*own)->impl_->own;
  } else {
    impl->own = std::make_shared<const Int8VnniGemm>(k, n, b);
  }
  impl->name = kOwn;
  return std::unique_ptr<Int8MatMul>(new Int8MatMul(m, signed_a, threads, std::move(impl)));
}

bool Int8MatMul::RunsAnyRowCount() const { return impl_->own != nullptr; }

std::unique_ptr<Int8MatMul> Int8MatMul::CreateAnyRowCount(int64_t m, int64_t k, int64_t n, bool signed_a,
                                                          const int8_t* b, int threads, KeptProducts kept) {
  const bool own_runs =
      Int8VnniGemm::Supported() && Int8GemmArithmetic() == Int8Arithmetic::kExact && m > 0 && k > 0 && n > 0;
  const std::optional<std::string> forced = ForcedImplementation(kForceVariable);
  if (!own_runs || (forced && *forced != kOwn)) return nullptr;
  return BuildOwn(m, k, n, signed_a, b, threads, kept);
}

Result<std::unique_ptr<Int8MatMul>> Int8MatMul::Create(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                                       int threads, KeptProducts kept) {
  // onyx's VNNI product computes the same exact sums; where oneDNN's would pair products in saturating int16 (no
  // VNNI: int8_gemm.h) it does not run at all.
  const bool own_runs =
      Int8VnniGemm::Supported() && Int8GemmArithmetic() == Int8Arithmetic::kExact && m > 0 && k > 0 && n > 0;
  const std::optional<std::string> forced = ForcedImplementation(kForceVariable);
  if (forced && own_runs && *forced == kOwn) return BuildOwn(m, k, n, signed_a, b, threads, kept);
  if (!own_runs || forced) return BuildDnnl(m, k, n, signed_a, b, threads, kept);
  const TuningMode mode = CurrentTuningMode();
  const auto cache = TuningCache::Process();
  std::string signature;
  if (mode != TuningMode::kOff) {
    // "int8mm4": since a choice holds for a row class (kernels/product_rows.h); "int8mm3": since C is evicted before
    // each timed run (PrepareProductTiming); "int8mm2": since A and C are placed as other threads leave them. oneDNN's
    // pick is part of the key (besides the cache's ISA prefix, TuningIsaName): a choice against one of its kernels
    // says nothing about another.
    auto dnnl_name = DnnlImplementationName(m, k, n, signed_a, b, threads);
    if (!dnnl_name.ok() || dnnl_name->rfind("ref", 0) == 0) {
      return BuildOwn(m, k, n, signed_a, b, threads, kept);  // oneDNN offers only its reference kernel
    }
    signature = "int8mm4/m" + RowClassText(m) + "k" + std::to_string(k) + "n" + std::to_string(n) + "/s" +
                std::to_string(signed_a) + "/t" + std::to_string(threads) + "/" + *dnnl_name;
    if (auto entry = cache->Find(signature, mode == TuningMode::kAlways)) {
      cache->NoteDecision(signature, *entry, false);
      if (entry->choice == kOwn) return BuildOwn(m, k, n, signed_a, b, threads, kept);
      return BuildDnnl(m, k, n, signed_a, b, threads, kept);
    }
  }
  auto made = BuildDnnl(m, k, n, signed_a, b, threads, kept);
  if (!made.ok()) return BuildOwn(m, k, n, signed_a, b, threads, kept);  // oneDNN offers only its reference kernel
  std::unique_ptr<Int8MatMul> dnnl = std::move(*made);
  if (mode == TuningMode::kOff) {
    // The fixed rule: oneDNN's AMX kernels (2-3x the VNNI peak), else onyx's (measured faster than oneDNN's VNNI
    // kernels on a BERT-like encoder's products, int8_gemm_vnni.h).
    if (dnnl->implementation().find("amx") != std::string::npos) return dnnl;
    return BuildOwn(m, k, n, signed_a, b, threads, kept);
  }
  if (mode == TuningMode::kCache && !cache->MissBudgetLeft()) return dnnl;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<Int8MatMul>> built;
  built.push_back(std::move(dnnl));
  built.push_back(BuildOwn(m, k, n, signed_a, b, threads, kept));
  const std::vector<std::string> names{kDnnl, kOwn};
  // Timed on a zero A into a scratch C, the weights evicted from the caches before each run, as a model whose weights
  // outgrow them finds them, and with several threads A and C placed as other nodes' threads leave them (FloatMatMul's
  // rules).
  std::vector<uint8_t> a(static_cast<size_t>(m * k), 0);
  std::vector<int32_t> c(static_cast<size_t>(m * n));
  const std::function<void(size_t)> before = [&](size_t i) {
    const Impl& impl = *built[i]->impl_;
    const bool own = impl.own != nullptr;
    PrepareProductTiming(a.data(), a.size(), c.data(), c.size() * sizeof(int32_t),
                         own ? static_cast<const void*>(impl.own->packed_data()) : impl.weights.get_data_handle(),
                         own ? impl.own->packed_bytes() : impl.weights.get_desc().get_size(), threads);
  };
  const std::vector<double> ms = TimeCandidates(
      built.size(), [&](size_t i) { return built[i]->Run(a.data(), 0, c.data()); },
      std::vector<int>(built.size(), threads), 20, 5, before);
  return std::move(built[cache->DecideMeasured(signature, names, ms, 0, kTimingNoise, start)]);
}

const std::string& Int8MatMul::implementation() const { return impl_->name; }

Status Int8MatMul::Run(int64_t rows, const void* a, int32_t a_zero_point, int32_t* c,
                       const Int8BlockEpilogue* epilogue) const {
  if (impl_->own != nullptr) {
    impl_->own->Run(rows, a, signed_a_, a_zero_point, c, threads_, epilogue);
    return Status::Ok();
  }
  if (rows != m_) {
    return Internal("int8 matmul built for " + std::to_string(m_) + " rows run on " + std::to_string(rows));
  }
  ONYX_RETURN_IF_ERROR(RunDnnl(a, a_zero_point, c));
  if (epilogue != nullptr) {
    const int64_t n = impl_->n, tasks = std::min<int64_t>(std::max(threads_, 1), m_);
    RunTasks(tasks, threads_, [&](int64_t t) { (*epilogue)(c, n, t * m_ / tasks, (t + 1) * m_ / tasks, 0, n); });
  }
  return Status::Ok();
}

Status Int8MatMul::RunDnnl(const void* a, int32_t a_zero_point, int32_t* c) const {
  const ScopedOmpThreads scoped(threads_);
  return DnnlCall("int8 matmul", [&] {
    int32_t zp = a_zero_point;
    std::unique_lock<std::mutex> lock(impl_->args_mutex, std::try_to_lock);
    DnnlArgs local;
    if (!lock.owns_lock()) impl_->FillArgs(local);
    DnnlArgs& args = lock.owns_lock() ? impl_->args : local;
    if (impl_->padded_k > 0) {
      // A's rows with zeros up to the padded depth (the buffer grows once per thread).
      thread_local std::vector<uint8_t> wide;
      const int64_t k = impl_->k, kp = impl_->padded_k;
      wide.assign(static_cast<size_t>(m_ * kp), 0);
      for (int64_t i = 0; i < m_; ++i) {
        std::memcpy(wide.data() + i * kp, static_cast<const uint8_t*>(a) + i * k, static_cast<size_t>(k));
      }
      a = wide.data();
    }
    if (impl_->split) {
      // Each row of A twice, against the two halves of the weights (the buffer grows once per thread).
      thread_local std::vector<uint8_t> doubled;
      const int64_t k = impl_->k;
      doubled.resize(static_cast<size_t>(m_ * 2 * k));
      Int8RepeatRows(static_cast<const uint8_t*>(a), m_, k, k, 1, doubled.data());
      a = doubled.data();
    }
    args.Set(DNNL_ARG_SRC, a);
    args.Set(DNNL_ARG_DST, c);
    args.Set(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, &zp);
    args.Execute(impl_->primitive);
  });
}

std::shared_ptr<Int8MatMul> Int8MatMulCache::Get(int64_t m, int64_t k, int64_t n, bool signed_a, const int8_t* b,
                                                 int threads) {
  const int run_threads = PrimitiveThreads(2 * m * k * n, threads);
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = std::find_if(kept_.begin(), kept_.end(), [&](const Kept& e) {
    return e.m == m && e.signed_a == signed_a && e.threads == run_threads;
  });
  const RowClass row_class = ProductRowClass(m);
  if (found == kept_.end()) {
    found = std::find_if(kept_.begin(), kept_.end(), [&](const Kept& e) {
      return e.signed_a == signed_a && e.threads == run_threads && ProductRowClass(e.m) == row_class &&
             e.mm != nullptr && e.mm->RunsAnyRowCount();
    });
  }
  if (found != kept_.end()) return found->mm;
  std::vector<const Int8MatMul*> kept;  // their copies of B, shared by a new product of the same layout
  for (auto it = kept_.rbegin(); it != kept_.rend(); ++it) {
    if (it->mm != nullptr) kept.push_back(it->mm.get());
  }
  std::shared_ptr<Int8MatMul> mm;
  if (class_builds_.CountBuild(m, 2 * run_threads + (signed_a ? 1 : 0))) {
    mm = Int8MatMul::CreateAnyRowCount(m, k, n, signed_a, b, run_threads, kept);
  }
  if (mm == nullptr) {
    auto made = Int8MatMul::Create(m, k, n, signed_a, b, run_threads, kept);
    if (made.ok()) mm = std::move(*made);
  }
  if (kept_.size() == kKept) kept_.erase(kept_.begin());
  kept_.push_back({m, signed_a, run_threads, mm});
  return mm;
}

size_t Int8MatMulCache::builds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return class_builds_.total();
}

}  // namespace onyx::kernels
