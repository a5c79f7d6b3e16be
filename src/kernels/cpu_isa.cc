#include "kernels/cpu_isa.h"

#include <hwy/targets.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

namespace onyx::kernels {
namespace {

// Highway's AVX-512 targets (the newer ones exist only in newer Highway releases).
constexpr int64_t kHwyAvx512Targets = HWY_AVX3 | HWY_AVX3_DL
#ifdef HWY_AVX3_ZEN4
                                      | HWY_AVX3_ZEN4
#endif
#ifdef HWY_AVX3_SPR
                                      | HWY_AVX3_SPR
#endif
    ;

}  // namespace

Result<IsaCap> ParseIsaCap(std::string_view text) {
  std::string lower;
  for (char c : text) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower.empty() || lower == "native") return IsaCap::kNative;
  if (lower == "avx512") return IsaCap::kAvx512;
  if (lower == "avx2") return IsaCap::kAvx2;
  return InvalidArgument("ONYX_MAX_ISA='" + std::string(text) + "' is not one of avx2, avx512, native");
}

IsaCap ProcessIsaCap() {
  static const IsaCap cap = [] {
    const char* env = std::getenv("ONYX_MAX_ISA");
    if (env == nullptr) return IsaCap::kNative;
    Result<IsaCap> parsed = ParseIsaCap(env);
    if (!parsed.ok()) {
      std::fprintf(stderr, "onyx: warning: %s; using the CPU's full instruction set\n",
                   parsed.status().message().c_str());
      return IsaCap::kNative;
    }
    return *parsed;
  }();
  return cap;
}

void ApplyIsaCap() {
  static std::once_flag once;
  std::call_once(once, [] {
    const IsaCap cap = ProcessIsaCap();
    if (cap == IsaCap::kNative) return;
    // Failure means oneDNN already chose its ISA (the cap came too late) or was built without the option; the
    // effective ISA, which every choice below reads, then tells the truth either way.
    try {
      dnnl::set_max_cpu_isa(cap == IsaCap::kAvx2 ? dnnl::cpu_isa::avx2 : dnnl::cpu_isa::avx512_core_bf16);
    } catch (const dnnl::error&) {
    }
    if (cap == IsaCap::kAvx2) hwy::DisableTargets(kHwyAvx512Targets);
  });
}

Isa EffectiveIsa() {
  ApplyIsaCap();
  try {
    switch (dnnl::get_effective_cpu_isa()) {
      case dnnl::cpu_isa::avx512_core:
      case dnnl::cpu_isa::avx512_core_vnni:
      case dnnl::cpu_isa::avx512_core_bf16:
      case dnnl::cpu_isa::avx512_core_amx:
        return Isa::kAvx512;
      case dnnl::cpu_isa::avx2:
      case dnnl::cpu_isa::avx2_vnni:
        return Isa::kAvx2;
      default:
        return Isa::kOther;
    }
  } catch (const dnnl::error&) {
    return Isa::kOther;
  }
}

std::string TuningIsaName() {
  std::string name = IsaName(EffectiveIsa());
  try {
    switch (dnnl::get_effective_cpu_isa()) {
      case dnnl::cpu_isa::avx512_core_amx:
        return name + "+amx";
      case dnnl::cpu_isa::avx512_core_vnni:
      case dnnl::cpu_isa::avx512_core_bf16:
      case dnnl::cpu_isa::avx2_vnni:
        return name + "+vnni";
      default:
        return name;
    }
  } catch (const dnnl::error&) {
    return name;
  }
}

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kOther:
      break;
  }
  return "other";
}

int BlockSizeFor(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return 16;
    case Isa::kAvx2:
      return 8;
    case Isa::kOther:
      break;
  }
  return 0;
}

int NchwcBlockSize() {
  static const int block = BlockSizeFor(EffectiveIsa());
  return block;
}

namespace {
// The cap in place while the library loads, before any oneDNN primitive or Highway dispatch (see cpu_isa.h).
[[maybe_unused]] const bool kCapApplied = (ApplyIsaCap(), true);
}  // namespace

int64_t L1DataCacheBytes() {
  static const int64_t bytes = [] {
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    return l1 > 0 ? static_cast<int64_t>(l1) : int64_t{32} << 10;
  }();
  return bytes;
}

int64_t L2CacheBytes() {
  static const int64_t bytes = [] {
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return l2 > 0 ? static_cast<int64_t>(l2) : int64_t{1} << 20;
  }();
  return bytes;
}

}  // namespace onyx::kernels
