// oneDNN plumbing shared by the kernels that call its primitives: one CPU engine for the process, a stream per
// thread, and the conversion of oneDNN's exceptions into onyx's Status (library code never lets them escape).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <string>
#include <utility>

#include "core/status.h"

namespace onyx::kernels {

const dnnl::engine& DnnlEngine();
dnnl::stream& DnnlStream();

// Whether oneDNN runs 16-channel-blocked (nChw16c) float convolutions with its JIT kernels on this CPU: only with
// AVX-512 (also as limited by ONEDNN_MAX_CPU_ISA). Elsewhere it would fall back to its reference loops, hundreds of
// times slower, so the blocked-layout pass stays off.
bool BlockedConvolutionIsFast();

// Runs f (which may throw dnnl::error) and turns a failure into an Internal error naming `what`.
template <typename F>
Status DnnlCall(const std::string& what, F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const dnnl::error& e) {
    return Internal(what + ": oneDNN: " + e.what());
  }
  return Status::Ok();
}

}  // namespace onyx::kernels
