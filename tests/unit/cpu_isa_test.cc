// The ISA cap (ONYX_MAX_ISA, kernels/cpu_isa.h): parsing, the block size per ISA, and that a cap in the environment
// of this test process reaches oneDNN, Highway and the blocked layout's block (ctest runs this binary once more with
// ONYX_MAX_ISA=avx2).
#include "kernels/cpu_isa.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstdlib>
#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "kernels/dnnl_util.h"
#include "kernels/vector_math.h"

namespace onyx::kernels {
namespace {

TEST(CpuIsa, ParsesTheThreeValuesInAnyCase) {
  for (const char* text : {"avx2", "AVX2", "Avx2"}) {
    auto cap = ParseIsaCap(text);
    ASSERT_TRUE(cap.ok()) << text;
    EXPECT_EQ(*cap, IsaCap::kAvx2) << text;
  }
  for (const char* text : {"avx512", "AVX512"}) {
    auto cap = ParseIsaCap(text);
    ASSERT_TRUE(cap.ok()) << text;
    EXPECT_EQ(*cap, IsaCap::kAvx512) << text;
  }
  for (const char* text : {"native", "NATIVE", ""}) {
    auto cap = ParseIsaCap(text);
    ASSERT_TRUE(cap.ok()) << text;
    EXPECT_EQ(*cap, IsaCap::kNative) << text;
  }
}

TEST(CpuIsa, RejectsOtherValuesNamingThem) {
  for (const char* text : {"avx", "sse4", "avx-512", "avx2 ", "avx512_core", "native2"}) {
    auto cap = ParseIsaCap(text);
    ASSERT_FALSE(cap.ok()) << text;
    EXPECT_NE(cap.status().message().find(std::string("'") + text + "'"), std::string::npos) << cap.status().message();
    EXPECT_NE(cap.status().message().find("avx2, avx512, native"), std::string::npos) << cap.status().message();
  }
}

TEST(CpuIsa, BlockSizePerIsa) {
  EXPECT_EQ(BlockSizeFor(Isa::kAvx512), 16);
  EXPECT_EQ(BlockSizeFor(Isa::kAvx2), 8);
  EXPECT_EQ(BlockSizeFor(Isa::kOther), 0);
  EXPECT_EQ(NchwcBlockSize(), BlockSizeFor(EffectiveIsa()));
  EXPECT_EQ(BlockedConvolutionIsFast(), NchwcBlockSize() != 0);
}

TEST(CpuIsa, ProcessCapComesFromTheEnvironment) {
  const char* env = std::getenv("ONYX_MAX_ISA");
  auto parsed = ParseIsaCap(env != nullptr ? env : "");
  EXPECT_EQ(ProcessIsaCap(), parsed.ok() ? *parsed : IsaCap::kNative);
}

TEST(CpuIsa, CapReachesOneDnnHighwayAndTheBlock) {
  const IsaCap cap = ProcessIsaCap();
  const Isa isa = EffectiveIsa();
  const dnnl::cpu_isa dnnl_isa = dnnl::get_effective_cpu_isa();
  const std::string hwy_target = ActiveTargetName();
  if (cap == IsaCap::kAvx2) {
    EXPECT_NE(isa, Isa::kAvx512);
    EXPECT_LE(static_cast<int>(dnnl_isa), static_cast<int>(dnnl::cpu_isa::avx2));
    EXPECT_EQ(hwy_target.rfind("AVX3", 0), std::string::npos) << hwy_target;
    EXPECT_EQ(hwy::SupportedTargets() & (HWY_AVX3 | HWY_AVX3_DL), 0);
    EXPECT_NE(NchwcBlockSize(), 16);
  } else if (cap == IsaCap::kAvx512) {
    EXPECT_NE(dnnl_isa, dnnl::cpu_isa::avx512_core_amx);
  }
  if (isa == Isa::kAvx512) {
    EXPECT_EQ(NchwcBlockSize(), 16);
  } else if (isa == Isa::kAvx2) {
    EXPECT_EQ(NchwcBlockSize(), 8);
  }
  // oneDNN's word and ours agree.
  const bool dnnl_avx512 = (static_cast<int>(dnnl_isa) & static_cast<int>(dnnl::cpu_isa::avx512_core)) ==
                           static_cast<int>(dnnl::cpu_isa::avx512_core);
  EXPECT_EQ(isa == Isa::kAvx512, dnnl_avx512);
}

}  // namespace
}  // namespace onyx::kernels
