#include "kernels/dnnl_util.h"

#include <omp.h>

#include "kernels/cpu_isa.h"

namespace onyx::kernels {

const dnnl::engine& DnnlEngine() {
  static const dnnl::engine engine = [] {
    ApplyIsaCap();  // before oneDNN picks its kernels' ISA
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
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

bool BlockedConvolutionIsFast() { return NchwcBlockSize() > 0; }

}  // namespace onyx::kernels
