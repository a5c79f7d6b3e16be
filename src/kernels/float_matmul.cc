#include "kernels/float_matmul.h"

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/dnnl_util.h"

namespace onyx::kernels {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

struct FloatMatMul::Impl {
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

// The implementation taken: oneDNN's gemm-based one by default, which reads B as stored, so the weights are not held
// twice (the packed brgemm kernels want B reordered into a copy: BERT-like encoder 700 MB peak instead of 405, for
// ~5% less time on this Xeon, loaded). ONYX_FLOAT_MATMUL_IMPL=<prefix of a oneDNN implementation name> ("brg",
// "gemm:jit") picks another where oneDNN offers it; where the preferred one is not offered, oneDNN's first choice.
// Read once.
const char* PreferredImplementation() {
  static const std::string value = [] {
    const char* v = std::getenv("ONYX_FLOAT_MATMUL_IMPL");
    return std::string(v != nullptr && *v != '\0' ? v : "gemm:jit");
  }();
  return value.c_str();
}

}  // namespace

FloatMatMul::FloatMatMul(int64_t m, int threads, std::unique_ptr<Impl> impl)
    : m_(m), threads_(threads), impl_(std::move(impl)) {}

FloatMatMul::~FloatMatMul() = default;

Result<std::unique_ptr<FloatMatMul>> FloatMatMul::Create(int64_t m, int64_t k, int64_t n, const float* b,
                                                         const float* bias, MatMulActivation activation, int threads,
                                                         const FloatMatMul* previous) {
  if (m <= 0 || k <= 0 || n <= 0) return Unsupported("empty float matmul");
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
    if (const char* want = PreferredImplementation()) {
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
  return std::unique_ptr<FloatMatMul>(new FloatMatMul(m, threads, std::move(impl)));
}

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
