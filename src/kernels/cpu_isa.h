// The instruction set onyx computes with, and the user's cap on it: environment variable ONYX_MAX_ISA = avx2 |
// avx512 | native (unset: native). The cap lets an AVX-512 machine run exactly what an AVX2-only CPU (AMD Zen 2/3,
// Intel client parts) would run, for tests and measurements. It applies to everything that looks at the CPU:
// oneDNN (set_max_cpu_isa), the Highway kernels of vector_math (their AVX-512 targets disabled), the blocked
// layout's channel block (NchwcBlockSize) and the decisions taken from oneDNN's effective ISA (such as
// int8_gemm.cc's exactness check). The library, the CLI and the Python module all read it here, once per process.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace onyx::kernels {

// What ONYX_MAX_ISA asks for. kAvx512 keeps AVX-512 and its extensions (VNNI, BF16) but not AMX.
enum class IsaCap { kNative, kAvx512, kAvx2 };

// Parses a value of ONYX_MAX_ISA: "avx2", "avx512" or "native", in any case; empty means native.
Result<IsaCap> ParseIsaCap(std::string_view text);

// The cap of this process: ONYX_MAX_ISA, read once. A value ParseIsaCap rejects is ignored (native) with one
// warning on stderr, since the variable is read where no error can be returned.
IsaCap ProcessIsaCap();

// Applies ProcessIsaCap to oneDNN and Highway. Idempotent and thread-safe; it also runs while the library loads
// (a static initializer in cpu_isa.cc), so that the cap is in place before any oneDNN primitive or Highway
// dispatch, including those of code that queries oneDNN directly. oneDNN accepts the cap only before its first
// use of the ISA; the explicit calls (DnnlEngine, NchwcBlockSize) make the ordering obvious where it matters.
void ApplyIsaCap();

// The vector ISA of onyx's float kernels, as far as the choices below care.
enum class Isa { kOther, kAvx2, kAvx512 };

// oneDNN's effective ISA (the CPU's, limited by the cap), after ApplyIsaCap.
Isa EffectiveIsa();
const char* IsaName(Isa isa);  // "avx512", "avx2", "other"

// The instruction sets a measured choice depends on, as the tuning cache keys its entries: IsaName(EffectiveIsa()),
// plus "+amx" or "+vnni" where oneDNN's effective ISA has those int8 units. Without them the int8 kernels timed on one
// would be replayed on the other: `ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI` on an AMX CPU (as on a Zen 4) then left VNNI
// choices for the uncapped runs (ResNet-50 QDQ 7.9 -> 14.8 ms at 1 thread on a Sapphire Rapids Xeon).
std::string TuningIsaName();

// The channel block of the blocked layout (ir/nchwc_ops.h) for `isa`: 16 (nChw16c) with AVX-512, 8 (nChw8c) with
// AVX2 (one vector register of floats either way, the layout oneDNN's JIT kernels for that ISA use); 0 where
// oneDNN has no JIT kernels for blocked layouts, so the layout pass stays off.
int BlockSizeFor(Isa isa);

// BlockSizeFor(EffectiveIsa()), chosen once per process.
int NchwcBlockSize();

// The data caches' sizes per core as the system reports them (32 KiB and 1 MiB where it does not), read once.
int64_t L1DataCacheBytes();
int64_t L2CacheBytes();

}  // namespace onyx::kernels
