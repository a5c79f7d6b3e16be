#include "kernels/dnnl_util.h"

#include <omp.h>

namespace onyx::kernels {

const dnnl::engine& DnnlEngine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& DnnlStream() {
  thread_local dnnl::stream stream(DnnlEngine());
  return stream;
}

ScopedOmpThreads::ScopedOmpThreads(int threads) {
  const int current = omp_get_max_threads();
  if (threads > 0 && threads != current) {
    saved_ = current;
    omp_set_num_threads(threads);
  }
}

ScopedOmpThreads::~ScopedOmpThreads() {
  if (saved_ > 0) omp_set_num_threads(saved_);
}

bool BlockedConvolutionIsFast() {
  static const bool fast = [] {
    try {
      const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
      return isa == dnnl::cpu_isa::avx512_core || isa == dnnl::cpu_isa::avx512_core_vnni ||
             isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return fast;
}

}  // namespace onyx::kernels
