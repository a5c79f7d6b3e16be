// The tuning cache (kernels/tuning_cache.h): the file round trip, what is ignored (corrupt, oversized, foreign
// files), the separation of keys by CPU, instruction-set cap and thread count, the noise rule, and the blocked
// convolution's use of it in each ONYX_TUNING mode.
#include "kernels/tuning_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "format/tensor_proto.h"
#include "kernels/cpu_isa.h"
#include "kernels/dnnl_util.h"
#include "kernels/nchwc_gemm_conv.h"
#include "runtime/session.h"
#include "text/parser.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using kernels::TuningCache;
using kernels::TuningEntry;
using kernels::TuningMode;

fs::path TempDir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("onyx_tuning_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteText(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

TuningEntry Entry(const std::string& choice, double a, double b) {
  return TuningEntry{choice, {{"direct/t1", a}, {"winograd/t1", b}}};
}

TEST(TuningCache, ParsesModes) {
  EXPECT_EQ(*kernels::ParseTuningMode(""), TuningMode::kCache);
  EXPECT_EQ(*kernels::ParseTuningMode("OFF"), TuningMode::kOff);
  EXPECT_EQ(*kernels::ParseTuningMode("cache"), TuningMode::kCache);
  EXPECT_EQ(*kernels::ParseTuningMode("Always"), TuningMode::kAlways);
  EXPECT_FALSE(kernels::ParseTuningMode("sometimes").ok());
}

TEST(TuningCache, CpuFileNameIsOnePlainComponent) {
  EXPECT_EQ(kernels::CpuFileName("Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz"),
            "Intel_R_Xeon_R_Platinum_8481C_CPU_2.70GHz");
  EXPECT_EQ(kernels::CpuFileName("../../etc/passwd"), "etc_passwd");
  EXPECT_EQ(kernels::CpuFileName(""), "unknown-cpu");
  EXPECT_LE(kernels::CpuFileName(std::string(500, 'a')).size(), 96u);
  EXPECT_FALSE(kernels::CpuModelName().empty());
}

// Two generations behind one masked brand string must not share a file: the identity adds cpuid's signature, and
// the whole identity survives as a file name (the brand string is at most 48 characters).
TEST(TuningCache, CpuIdentityNamesTheGeneration) {
  const std::string name = kernels::CpuModelName();
  const std::string identity = kernels::CpuIdentity();
  ASSERT_EQ(identity.rfind(name, 0), 0u) << identity;
#if defined(__x86_64__)
  EXPECT_NE(identity.find(" (", name.size()), std::string::npos) << identity;
  EXPECT_EQ(identity.back(), ')') << identity;
  EXPECT_NE(kernels::CpuFileName(identity), kernels::CpuFileName(name));
#endif
  EXPECT_LT(kernels::CpuFileName(identity).size(), 96u);
}

TEST(TuningCache, RoundTripThroughTheFile) {
  const fs::path dir = TempDir("roundtrip");
  {
    TuningCache cache(dir.string(), "Test CPU 1", "avx512");
    EXPECT_FALSE(cache.Find("conv a").has_value());
    ASSERT_TRUE(cache.Record("conv a", Entry("winograd/t1", 2.5, 1.25)).ok());
    ASSERT_TRUE(cache.Record("conv b", Entry("direct/t1", 1.0, 3.0)).ok());
    EXPECT_EQ(cache.path(), (dir / "Test_CPU_1.json").string());
  }
  ASSERT_TRUE(fs::exists(dir / "Test_CPU_1.json"));
  TuningCache again(dir.string(), "Test CPU 1", "avx512");
  auto a = again.Find("conv a");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->choice, "winograd/t1");
  ASSERT_EQ(a->times.size(), 2u);
  double direct = 0, winograd = 0;
  for (const auto& t : a->times) (t.candidate == "direct/t1" ? direct : winograd) = t.ms;
  EXPECT_DOUBLE_EQ(direct, 2.5);
  EXPECT_DOUBLE_EQ(winograd, 1.25);
  ASSERT_TRUE(again.Find("conv b").has_value());
  EXPECT_EQ(again.Find("conv b")->choice, "direct/t1");
  EXPECT_TRUE(again.warnings().empty());
  // Found in the file, but not recorded by this object: mode always re-times it.
  EXPECT_FALSE(again.Find("conv a", /*recorded_only=*/true).has_value());
  fs::remove_all(dir);
}

TEST(TuningCache, KeysAreSeparatedByCpuAndIsa) {
  const fs::path dir = TempDir("keys");
  TuningCache avx512(dir.string(), "Test CPU 1", "avx512");
  ASSERT_TRUE(avx512.Record("conv a", Entry("winograd/t1", 2, 1)).ok());
  // Another CPU model: its own file, nothing shared.
  TuningCache other_cpu(dir.string(), "Test CPU 2", "avx512");
  EXPECT_FALSE(other_cpu.Find("conv a").has_value());
  ASSERT_TRUE(other_cpu.Record("conv a", Entry("direct/t1", 1, 2)).ok());
  EXPECT_TRUE(fs::exists(dir / "Test_CPU_2.json"));
  // Another instruction-set cap in the same file: separate keys, and writing one keeps the other's.
  TuningCache avx2(dir.string(), "Test CPU 1", "avx2");
  EXPECT_FALSE(avx2.Find("conv a").has_value());
  ASSERT_TRUE(avx2.Record("conv a", Entry("direct/t1", 1, 2)).ok());
  TuningCache reread(dir.string(), "Test CPU 1", "avx512");
  ASSERT_TRUE(reread.Find("conv a").has_value());
  EXPECT_EQ(reread.Find("conv a")->choice, "winograd/t1");
  TuningCache reread2(dir.string(), "Test CPU 1", "avx2");
  EXPECT_EQ(reread2.Find("conv a")->choice, "direct/t1");
  // Two names that share a file name ("Test CPU 1" and "Test_CPU_1"): the file says whose it is, so the other
  // ignores it (with a warning) rather than taking another CPU's choices.
  TuningCache clash(dir.string(), "Test_CPU_1", "avx512");
  EXPECT_FALSE(clash.Find("conv a").has_value());
  EXPECT_EQ(clash.warnings().size(), 1u);
  fs::remove_all(dir);
}

TEST(TuningCache, WritersMergeInsteadOfDropping) {
  // Two processes (two cache objects) filling one file: each write keeps what the other wrote before it.
  const fs::path dir = TempDir("merge");
  TuningCache first(dir.string(), "Test CPU 1", "avx512");
  TuningCache second(dir.string(), "Test CPU 1", "avx512");
  EXPECT_FALSE(first.Find("x").has_value());  // both have read the (missing) file
  EXPECT_FALSE(second.Find("x").has_value());
  ASSERT_TRUE(first.Record("conv a", Entry("direct/t1", 1, 2)).ok());
  ASSERT_TRUE(second.Record("conv b", Entry("winograd/t1", 2, 1)).ok());
  TuningCache reread(dir.string(), "Test CPU 1", "avx512");
  EXPECT_TRUE(reread.Find("conv a").has_value());
  EXPECT_TRUE(reread.Find("conv b").has_value());
  // No temporary files left behind.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(TuningCache, CorruptFilesAreIgnoredAndReplaced) {
  const fs::path dir = TempDir("corrupt");
  const fs::path file = dir / "Test_CPU_1.json";
  const std::string bad_files[] = {
      "{\"format\": \"onyx-tuning-1\", \"cpu\": \"Test CPU 1\", \"entries\": {\"avx512|conv a\": {\"choi",
      "\x00\x01\x02 not json at all",
      "[1, 2, 3]",
      "{\"format\": \"something-else\", \"cpu\": \"Test CPU 1\", \"entries\": {}}",
      "{\"format\": \"onyx-tuning-1\", \"cpu\": \"Test CPU 1\", \"entries\": 7}",
  };
  for (const auto& text : bad_files) {
    WriteText(file, text);
    TuningCache cache(dir.string(), "Test CPU 1", "avx512");
    EXPECT_FALSE(cache.Find("conv a").has_value()) << text;
    EXPECT_EQ(cache.warnings().size(), 1u) << text;
    // Recording replaces the bad file with a good one.
    ASSERT_TRUE(cache.Record("conv a", Entry("direct/t1", 1, 2)).ok());
    TuningCache reread(dir.string(), "Test CPU 1", "avx512");
    EXPECT_TRUE(reread.Find("conv a").has_value()) << text;
    EXPECT_TRUE(reread.warnings().empty()) << text;
  }
  // Malformed entries are skipped one by one; good ones beside them still count.
  WriteText(file,
            "{\"format\": \"onyx-tuning-1\", \"cpu\": \"Test CPU 1\", \"entries\": {"
            "\"avx512|good\": {\"choice\": \"direct/t1\", \"times_ms\": {\"direct/t1\": 1}},"
            "\"avx512|no choice\": {\"times_ms\": {}},"
            "\"avx512|bad time\": {\"choice\": \"direct/t1\", \"times_ms\": {\"direct/t1\": \"fast\"}}}}");
  TuningCache partial(dir.string(), "Test CPU 1", "avx512");
  EXPECT_TRUE(partial.Find("good").has_value());
  EXPECT_FALSE(partial.Find("no choice").has_value());
  EXPECT_FALSE(partial.Find("bad time").has_value());
  EXPECT_EQ(partial.warnings().size(), 1u);
  // A file over the size limit is not even read.
  WriteText(file, std::string(TuningCache::kMaxFileBytes + 1, ' '));
  TuningCache huge(dir.string(), "Test CPU 1", "avx512");
  EXPECT_FALSE(huge.Find("good").has_value());
  ASSERT_EQ(huge.warnings().size(), 1u);
  EXPECT_NE(huge.warnings()[0].find("limit"), std::string::npos) << huge.warnings()[0];
  // A folder where the file should be: a warning, and Record reports the failure instead of crashing.
  fs::remove(file);
  fs::create_directories(file);
  TuningCache blocked(dir.string(), "Test CPU 1", "avx512");
  EXPECT_FALSE(blocked.Find("good").has_value());
  EXPECT_FALSE(blocked.Record("good", Entry("direct/t1", 1, 2)).ok());
  EXPECT_TRUE(blocked.Find("good").has_value());  // still used by this process
  fs::remove_all(dir);
}

TEST(TuningCache, TimeCandidatesIgnoresRunsThatLackedTheirThreads) {
  // Candidate 1 spends its runs off the CPU (as a thread does when other processes hold the CPUs): its CPU time is
  // far below its wall time, so none of its runs count; candidate 0 computes throughout and counts.
  const auto ms = kernels::TimeCandidates(2,
                                          [&](size_t i) {
                                            if (i == 1) {
                                              std::this_thread::sleep_for(std::chrono::microseconds(300));
                                              return Status::Ok();
                                            }
                                            const auto until =
                                                std::chrono::steady_clock::now() + std::chrono::microseconds(200);
                                            while (std::chrono::steady_clock::now() < until) {
                                            }
                                            return Status::Ok();
                                          },
                                          {1, 1});
  EXPECT_TRUE(std::isfinite(ms[0]));
  EXPECT_TRUE(std::isinf(ms[1]));
}

TEST(TuningCache, TimeCandidatesPreparesEachTimedRunOutsideItsTime) {
  // `before` runs ahead of every timed run (not the warm-up) of that candidate, and its time is not counted: a
  // 5 ms preparation does not show in a ~0.2 ms candidate's time.
  std::vector<int> order;
  const auto ms = kernels::TimeCandidates(
      2,
      [&](size_t i) {
        order.push_back(static_cast<int>(i));
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
        while (std::chrono::steady_clock::now() < until) {
        }
        return Status::Ok();
      },
      {1, 1}, 20, 3,
      [&](size_t i) {
        order.push_back(100 + static_cast<int>(i));
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
        while (std::chrono::steady_clock::now() < until) {
        }
      });
  ASSERT_GE(order.size(), 2u + 2u * 2u);
  EXPECT_EQ(order[0], 0);  // warm-ups, unprepared
  EXPECT_EQ(order[1], 1);
  for (size_t j = 2; j < order.size(); j += 2) {
    EXPECT_EQ(order[j], 100 + order[j + 1]) << "run " << j + 1 << " was not prepared right before";
  }
  for (double t : ms) {
    if (std::isfinite(t)) {
      EXPECT_LT(t, 4.0);
    }
  }
  EXPECT_TRUE(std::isfinite(ms[0]) || std::isfinite(ms[1]));
}

TEST(TuningCache, FlushAndEvictLeaveDataIntact) {
  std::vector<float> weights(100000);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(i);
  kernels::FlushFromCaches(weights.data(), weights.size() * sizeof(float));
  kernels::FlushFromCaches(weights.data() + 3, 5);  // an unaligned range
  kernels::EvictTranslations();
  kernels::EvictTranslations();
  for (size_t i = 0; i < weights.size(); ++i) ASSERT_EQ(weights[i], static_cast<float>(i));
}

TEST(TuningCache, PlaceAsWrittenByCopiesEveryByteOnAnyTeam) {
  // Sizes around the 4 KB pages it deals out, on teams that leave some thread without a page.
  for (const size_t bytes : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{3 * 4096 + 17}}) {
    for (const int threads : {1, 2, 3, 8}) {
      std::vector<uint8_t> src(bytes), dst(bytes, 0xAB);
      for (size_t i = 0; i < bytes; ++i) src[i] = static_cast<uint8_t>(i * 7 + 1);
      kernels::PlaceAsWrittenBy(dst.data(), src.data(), bytes, threads);
      EXPECT_EQ(dst, src) << bytes << " bytes, " << threads << " threads";
      kernels::PlaceAsWrittenBy(dst.data(), nullptr, bytes, threads);
      EXPECT_EQ(dst, std::vector<uint8_t>(bytes, 0)) << bytes << " bytes, " << threads << " threads";
    }
  }
}

TEST(TuningCache, NoiseKeepsTheFixedChoice) {
  // Candidate 0 is the fixed rule's choice.
  EXPECT_EQ(kernels::PickFastest({1.00, 0.98}, 0), 0u);  // 2% faster: noise
  EXPECT_EQ(kernels::PickFastest({1.00, 0.90}, 0), 1u);  // 10% faster: taken
  EXPECT_EQ(kernels::PickFastest({1.00, 1.20, 0.50}, 1), 2u);
  EXPECT_EQ(kernels::PickFastest({0.90, 1.00}, 1), 0u);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(kernels::PickFastest({inf, 1.0}, 0), 1u);  // the fixed choice failed to run
}

TEST(TuningCache, TimeCandidatesGivesFailuresInfinity) {
  int calls[2] = {0, 0};
  const auto ms = kernels::TimeCandidates(2,
                                          [&](size_t i) {
                                            ++calls[i];
                                            // Busy for ~0.2 ms so that the run's CPU time is measurable against its
                                            // wall time.
                                            const auto until =
                                                std::chrono::steady_clock::now() + std::chrono::microseconds(200);
                                            while (std::chrono::steady_clock::now() < until) {
                                            }
                                            return i == 1 ? Internal("declined") : Status::Ok();
                                          },
                                          {1, 1});
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_TRUE(std::isfinite(ms[0]));
  EXPECT_GE(ms[0], 0);
  EXPECT_TRUE(std::isinf(ms[1]));
  EXPECT_EQ(calls[1], 1);  // not retried after failing its warm-up
  EXPECT_GE(calls[0], 3);  // warm-up and at least two timed rounds
}

// --- The blocked convolution's use of the cache ---

// A 3x3 stride-1 convolution (Winograd is a candidate) small enough that its thread count is one too, then a 1x1.
constexpr const char* kConvModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,20,20] x, float[64,32,3,3] w, float[64] b, float[32,64,1,1] w2) => (float[1,32,20,20] y) {
  c = Conv<pads = [1,1,1,1]>(x, w, b)
  r = Relu(c)
  y = Conv(r, w2)
}
)";

// A MobileNet-v2 block: 1x1 expansion, 3x3 depthwise (fused into the 1x1 where oneDNN can), 1x1 projection.
constexpr const char* kDepthwiseModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,20,20] x, float[64,32,1,1] w, float[64] b, float[64,1,3,3] dw, float[64] db, float[32,64,1,1] w2)
    => (float[1,32,20,20] y) {
  e = Conv(x, w, b)
  r = Relu(e)
  d = Conv<group = 64, pads = [1,1,1,1]>(r, dw, db)
  r2 = Relu(d)
  y = Conv(r2, w2)
}
)";

// A depthwise convolution after a 3x3 one: not fused, it runs as a convolution of its own on the blocked input.
constexpr const char* kDepthwiseAfter3x3Model = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,20,20] x, float[64,32,3,3] w, float[64] b, float[64,1,3,3] dw, float[64] db, float[32,64,1,1] w2)
    => (float[1,32,20,20] y) {
  e = Conv<pads = [1,1,1,1]>(x, w, b)
  r = Relu(e)
  d = Conv<group = 64, pads = [1,1,1,1]>(r, dw, db)
  r2 = Relu(d)
  y = Conv(r2, w2)
}
)";

// A residual block: the Add (and the Relu after it) fused into the second convolution as a sum post-op.
constexpr const char* kResidualModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,20,20] x, float[64,32,1,1] w, float[64] b, float[32,64,3,3] w2, float[32] b2) => (float[1,32,20,20] y) {
  e = Conv(x, w, b)
  r = Relu(e)
  c = Conv<pads = [1,1,1,1]>(r, w2, b2)
  s = Add(c, x)
  y = Relu(s)
}
)";

// The model with every input but x as an initializer (as weights must be for the blocked path), or as it is.
ir::Model ConvModel(bool constant_weights, const char* model_text = kConvModel) {
  auto parsed = text::ParseModel(model_text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  ir::Model m = *parsed;
  if (!constant_weights) return m;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  m.graph.inputs.clear();
  for (const auto& in : parsed->graph.inputs) {
    if (in.name == "x") {
      m.graph.inputs.push_back(in);
      continue;
    }
    Shape shape;
    for (const auto& d : *in.type->shape) shape.push_back(d.value);
    Tensor t = Tensor::Allocate(DataType::kFloat, shape);
    for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = dist(rng);
    m.graph.initializers.push_back(ir::NamedTensor{in.name, "", t, {}, {}});
  }
  return m;
}

Tensor Input() {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> dist(-1, 1);
  Tensor x = Tensor::Allocate(DataType::kFloat, {1, 32, 20, 20});
  for (int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = dist(rng);
  return x;
}

// Runs the blocked model once with `threads` threads; returns its output.
Tensor RunConv(int threads, const char* model_text = kConvModel) {
  SessionOptions options;
  options.intra_op_num_threads = threads;
  auto session = Session::Create(ConvModel(true, model_text), options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  std::vector<Value> out;
  Status st = (*session)->Run({{"x", Value(Input())}}, {}, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  return st.ok() ? out[0].tensor() : Tensor();
}

void ExpectClose(const Tensor& want, const Tensor& got) {
  ASSERT_EQ(want.shape(), got.shape());
  int bad = 0;
  for (int64_t i = 0; i < want.size() && bad < 5; ++i) {
    const float a = want.data<float>()[i], b = got.data<float>()[i];
    if (std::fabs(a - b) > 1e-4f + 1e-4f * std::fabs(a)) {
      ADD_FAILURE() << "element " << i << ": reference " << a << ", tuned " << b;
      ++bad;
    }
  }
}

// The 3x3 convolution's Winograd candidates at one thread count: onyx's own F(2x2, 3x3) and F(4x4, 3x3)
// (kernels/winograd_conv.h, AVX2 code, in either block), and with AVX-512 also oneDNN's (float Winograd only there);
// none without the blocked layout. Where there is one, the 3x3 convolution has a choice at 1 thread. Most tests below
// tune at 1 thread: 1-thread timings are rarely refused on a loaded machine, 2-thread ones often are.
size_t WinogradCandidates() {
  switch (kernels::EffectiveIsa()) {
    case kernels::Isa::kAvx512:
      return 3;
    case kernels::Isa::kAvx2:
      return 2;
    default:
      return 0;
  }
}
bool HasWinograd() { return WinogradCandidates() > 0; }
// onyx's own direct convolution (kernels/nchwc_direct_conv.h) is a candidate for every convolution of one group without
// a fused depthwise one, at each thread count, wherever the blocked layout is (AVX2 or AVX-512 code).
size_t OwnDirectCandidates() { return kernels::EffectiveIsa() == kernels::Isa::kOther ? 0 : 1; }
// Its candidates per thread count: the rows order and the gathered one (odirect, ogather).
size_t OwnDirectKinds() { return 2 * OwnDirectCandidates(); }
// onyx's convolution as a matrix product (kernels/nchwc_gemm_conv.h) is a candidate for every convolution of one
// group without a fused depthwise one where its packed-rows tile runs (AVX-512).
size_t OwnGemmCandidates() {
  kernels::BlockedConvShape shape;
  shape.in_channels = 32;
  shape.out_channels = 64;
  shape.height = shape.width = shape.out_height = shape.out_width = 20;
  return kernels::NchwcGemmConv::Supported(shape) ? 1 : 0;
}
// The convolutions of kConvModel with a choice at 1 thread: the 3x3 (Winograd or own direct) and the 1x1 (own direct).
size_t ShapesTimedAtOneThread() { return (HasWinograd() || OwnDirectCandidates() > 0 ? 1 : 0) + OwnDirectCandidates(); }

// Points the process's cache at a fresh folder and sets the mode for one test; restores both afterwards.
class TunedConv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!kernels::BlockedConvolutionIsFast()) GTEST_SKIP() << "no blocked layout on this CPU";
    dir_ = TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    TuningCache::ResetProcess(dir_.string());
  }
  void TearDown() override {
    kernels::SetTuningModeOverride(std::nullopt);
    TuningCache::ResetProcess(kernels::DefaultTuningDir());
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // The reference: the unoptimized session (plain Conv kernels).
  Tensor Reference(const char* model_text = kConvModel) {
    SessionOptions options;
    options.optimization_level = optimizer::OptLevel::kDisabled;
    auto session = Session::Create(ConvModel(true, model_text), options);
    EXPECT_TRUE(session.ok()) << session.status().message();
    std::vector<Value> out;
    EXPECT_TRUE((*session)->Run({{"x", Value(Input())}}, {}, &out).ok());
    return out[0].tensor();
  }
  // Runs the model in mode always at `threads` threads until `want` shapes were measured and recorded, each try as
  // a new process would (a fresh cache object): a timing that other processes disturbed records nothing
  // (TimeCandidates), so on a busy machine it may take a few tries. Returns the last try's decisions.
  std::vector<kernels::TuningDecision> TuneUntil(int threads, size_t want, const Tensor& reference,
                                                 const char* model_text = kConvModel) {
    kernels::SetTuningModeOverride(TuningMode::kAlways);
    std::vector<kernels::TuningDecision> decisions;
    for (int attempt = 0; attempt < 20 && decisions.size() < want; ++attempt) {
      TuningCache::ResetProcess(dir_.string());
      ExpectClose(reference, RunConv(threads, model_text));
      decisions = TuningCache::Process()->Decisions();
    }
    return decisions;
  }
  // Records `choice` for every signature a tuning run gave (`tuned`, each holding `candidate_tag`: the candidate
  // applies), then runs `model` at `threads` threads in cache mode: each convolution must take that choice, unmeasured,
  // and the output must match `want`.
  void ExpectForcedChoiceMatches(const std::vector<kernels::TuningDecision>& tuned, const char* candidate_tag,
                                 const std::string& choice, int threads, const Tensor& want, const char* model_text) {
    TuningCache::ResetProcess(dir_.string());
    for (const auto& d : tuned) {
      EXPECT_NE(d.signature.find(candidate_tag), std::string::npos) << d.signature;
      ASSERT_TRUE(TuningCache::Process()->Record(d.signature, {choice, {}}).ok());
    }
    TuningCache::ResetProcess(dir_.string());
    kernels::SetTuningModeOverride(TuningMode::kCache);
    ExpectClose(want, RunConv(threads, model_text));
    const auto decisions = TuningCache::Process()->Decisions();
    ASSERT_EQ(decisions.size(), tuned.size());
    for (const auto& d : decisions) {
      EXPECT_FALSE(d.measured) << d.signature;
      EXPECT_EQ(d.entry.choice, choice) << d.signature;
    }
  }
  fs::path dir_;
};

TEST_F(TunedConv, AlwaysTimesRecordsAndStaysCorrect) {
  const Tensor want = Reference();
  // One thread: the 3x3 convolution chooses between direct, Winograd (oneDNN 2.6 has Winograd with AVX-512 only,
  // onyx's own with AVX2 too) and onyx's own direct one; the 1x1 between oneDNN's and onyx's own direct ones.
  const size_t own_direct = OwnDirectKinds();
  const size_t t1_shapes = ShapesTimedAtOneThread();
  const auto t1 = TuneUntil(1, t1_shapes, want);
  ASSERT_EQ(t1.size(), t1_shapes);
  for (const auto& d : t1) {
    EXPECT_TRUE(d.measured);
    EXPECT_NE(d.signature.find(" threads=1"), std::string::npos) << d.signature;
    const std::string& choice = d.entry.choice;
    if (d.signature.find("w=64x32x3x3") != std::string::npos) {
      EXPECT_EQ(d.entry.times.size(), 1 + WinogradCandidates() + own_direct + OwnGemmCandidates());
      EXPECT_TRUE(choice == "direct/t1" || choice == "winograd/t1" || choice == "owino2/t1" || choice == "owino4/t1" ||
                  choice == "odirect/t1" || choice == "ogather/t1" || choice == "ogemm/t1")
          << choice;
    } else {
      EXPECT_NE(d.signature.find("w=32x64x1x1"), std::string::npos) << d.signature;
      EXPECT_EQ(d.entry.times.size(), 1 + own_direct + OwnGemmCandidates());
      EXPECT_TRUE(choice == "direct/t1" || choice == "odirect/t1" || choice == "ogather/t1" || choice == "ogemm/t1")
          << choice;
    }
  }
  // Two threads: both convolutions are small enough for their thread count to be timed too. Every 2-thread timing
  // is refused while other processes keep a CPU busy (a loaded 2-CPU machine can stay so for minutes).
  const auto t2 = TuneUntil(2, 2, want);
  if (t2.size() < 2) GTEST_SKIP() << "2-thread timings disturbed by other processes in every try";
  ASSERT_EQ(t2.size(), 2u);
  for (const auto& d : t2) {
    EXPECT_TRUE(d.measured) << d.signature;
    EXPECT_NE(d.signature.find(" placed threads=2"), std::string::npos) << d.signature;
    const bool is_3x3 = d.signature.find("x3x3") != std::string::npos;
    // One image with 32 and 64 output channels: both also have the split candidate (2 one-thread halves).
    EXPECT_NE(d.signature.find(" split"), std::string::npos) << d.signature;
    const size_t kinds = 1 + (is_3x3 ? WinogradCandidates() : 0) + OwnGemmCandidates() + own_direct;
    EXPECT_EQ(d.entry.times.size(), 2 * kinds + 1) << d.signature;
  }
  // The same convolutions at different thread counts are separate keys in one file.
  const std::string file = ReadText(TuningCache::Process()->path());
  EXPECT_EQ(file.find("threads=1") != std::string::npos, t1_shapes > 0);
  EXPECT_NE(file.find("threads=2"), std::string::npos);
}

TEST_F(TunedConv, CacheModeReusesWhatWasMeasured) {
  if (ShapesTimedAtOneThread() == 0) GTEST_SKIP() << "no choice at 1 thread";
  const size_t measured = TuneUntil(1, ShapesTimedAtOneThread(), Reference()).size();
  ASSERT_EQ(measured, ShapesTimedAtOneThread());
  const std::string before = ReadText(TuningCache::Process()->path());
  // A new process (a fresh cache object over the same folder) in cache mode: every choice comes from the file.
  TuningCache::ResetProcess(dir_.string());
  kernels::SetTuningModeOverride(TuningMode::kCache);
  ExpectClose(Reference(), RunConv(1));
  const auto decisions = TuningCache::Process()->Decisions();
  EXPECT_EQ(decisions.size(), measured);
  for (const auto& d : decisions) EXPECT_FALSE(d.measured) << d.signature;
  EXPECT_EQ(ReadText(TuningCache::Process()->path()), before);
}

TEST_F(TunedConv, CacheModeStopsTimingMissesPastTheBudget) {
  if (!HasWinograd()) GTEST_SKIP() << "no Winograd candidate: no choice at 1 thread";
  kernels::SetTuningModeOverride(TuningMode::kCache);
  TuningCache::Process()->SpendMissTime(TuningCache::kMissBudgetMs);
  ExpectClose(Reference(), RunConv(1));  // the fixed rules, neither timed nor recorded
  EXPECT_TRUE(TuningCache::Process()->Decisions().empty());
  EXPECT_FALSE(fs::exists(TuningCache::Process()->path()));
  // With budget left, the same misses are timed and recorded (retried while other processes disturb the timing).
  for (int attempt = 0; attempt < 20 && TuningCache::Process()->Decisions().empty(); ++attempt) {
    TuningCache::ResetProcess(dir_.string());
    ExpectClose(Reference(), RunConv(1));
  }
  EXPECT_FALSE(TuningCache::Process()->Decisions().empty());
  EXPECT_TRUE(fs::exists(TuningCache::Process()->path()));
}

TEST(TuningCache, SessionsBoundTheMissBudgetByTheirCreationTime) {
  constexpr double kBudget = TuningCache::kMissBudgetMs;
  constexpr double kPerMs = TuningCache::kMissTimePerCreationTime;
  TuningCache cache("", "cpu", "isa");
  // Before any session, the process's budget alone.
  cache.SpendMissTime(kBudget / 2);
  EXPECT_TRUE(cache.MissBudgetLeft());
  // A session created in kBudget / (4 kPerMs) ms allows a quarter of the budget: already spent.
  cache.AllowMissTime(kBudget / (4 * kPerMs));
  EXPECT_FALSE(cache.MissBudgetLeft());
  // A second, larger session adds its own share (3/4 of the budget in all), still under the process's cap.
  cache.AllowMissTime(kBudget / (2 * kPerMs));
  EXPECT_TRUE(cache.MissBudgetLeft());
  cache.SpendMissTime(kBudget / 8);  // 5/8 spent
  EXPECT_TRUE(cache.MissBudgetLeft());
  cache.SpendMissTime(kBudget / 8);  // 3/4
  EXPECT_FALSE(cache.MissBudgetLeft());
  // A large session: up to the process's cap, which holds whatever the sessions allowed.
  cache.AllowMissTime(1000 * kBudget);
  EXPECT_TRUE(cache.MissBudgetLeft());
  cache.SpendMissTime(kBudget / 4);  // all of it
  EXPECT_FALSE(cache.MissBudgetLeft());
  // `onyx tune`: every shape timed.
  cache.SetMissBudget(std::numeric_limits<double>::infinity());
  EXPECT_TRUE(cache.MissBudgetLeft());
}

// A small 1x1 convolution (two kinds of candidate: oneDNN's and onyx's own direct kernels) before a 3x3 one of 18x its
// FLOPs (three or four kinds: Winograd too).
constexpr const char* kSmallThenLargeModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,20,20] x, float[32,32,1,1] w, float[64,32,3,3] w2, float[64] b2) => (float[1,64,20,20] y) {
  a = Conv(x, w)
  y = Conv<pads = [1,1,1,1]>(a, w2, b2)
}
)";

// Two 3x3 convolutions of one shape (the activation is part of the signature: both have one), side by side: in a
// chain the second one's inputs would be large enough for Winograd's rounding to pass ExpectClose's bound.
constexpr const char* kTwinConvModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,20,20] x, float[32,32,3,3] w, float[32,32,3,3] w2) => (float[1,32,20,20] y, float[1,32,20,20] y2) {
  a = Conv<pads = [1,1,1,1]>(x, w)
  y = Relu(a)
  c = Conv<pads = [1,1,1,1]>(x, w2)
  y2 = Relu(c)
}
)";

TEST_F(TunedConv, CacheModeTimesTheLargestGainFirst) {
  if (OwnDirectCandidates() == 0) GTEST_SKIP() << "no choice for the 1x1 convolution on this CPU";
  const Tensor want = Reference(kSmallThenLargeModel);
  kernels::SetTuningModeOverride(TuningMode::kCache);
  // Budget for one shape: the first one timed spends the rest. In graph order that was the 1x1 convolution; timed
  // after the run, most to gain first, it is the 3x3 one. Retried while other processes disturb the timing.
  std::vector<kernels::TuningDecision> decisions;
  for (int attempt = 0; attempt < 20 && decisions.empty(); ++attempt) {
    TuningCache::ResetProcess(dir_.string());
    SessionOptions options;
    options.intra_op_num_threads = 1;
    auto session = Session::Create(ConvModel(true, kSmallThenLargeModel), options);
    ASSERT_TRUE(session.ok()) << session.status().message();
    TuningCache::Process()->AllowMissTime(1000 * TuningCache::kMissBudgetMs);
    TuningCache::Process()->SpendMissTime(TuningCache::kMissBudgetMs - 1e-3);
    // The first run takes the fixed rules and times after; the second the winner. Both compute the convolutions.
    for (int run = 0; run < 2; ++run) {
      std::vector<Value> out;
      ASSERT_TRUE((*session)->Run({{"x", Value(Input())}}, {}, &out).ok());
      ExpectClose(want, out[0].tensor());
    }
    decisions = TuningCache::Process()->Decisions();
  }
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_TRUE(decisions[0].measured);
  EXPECT_NE(decisions[0].signature.find("w=64x32x3x3"), std::string::npos) << decisions[0].signature;
  EXPECT_EQ(ReadText(TuningCache::Process()->path()).find("w=32x32x1x1"), std::string::npos);
}

TEST_F(TunedConv, CacheModeTimesEachShapeOnceAndSharesTheChoice) {
  std::vector<Value> want;
  {
    SessionOptions options;
    options.optimization_level = optimizer::OptLevel::kDisabled;
    auto reference = Session::Create(ConvModel(true, kTwinConvModel), options);
    ASSERT_TRUE(reference.ok()) << reference.status().message();
    ASSERT_TRUE((*reference)->Run({{"x", Value(Input())}}, {}, &want).ok());
    ASSERT_EQ(want.size(), 2u);
  }
  kernels::SetTuningModeOverride(TuningMode::kCache);
  std::vector<kernels::TuningDecision> decisions;
  for (int attempt = 0; attempt < 20 && decisions.size() < 2; ++attempt) {
    TuningCache::ResetProcess(dir_.string());
    SessionOptions options;
    options.intra_op_num_threads = 1;
    auto session = Session::Create(ConvModel(true, kTwinConvModel), options);
    ASSERT_TRUE(session.ok()) << session.status().message();
    TuningCache::Process()->AllowMissTime(1000 * TuningCache::kMissBudgetMs);
    std::vector<Value> first;
    for (int run = 0; run < 2; ++run) {
      std::vector<Value> out;
      ASSERT_TRUE((*session)->Run({{"x", Value(Input())}}, {}, &out).ok());
      ASSERT_EQ(out.size(), 2u);
      ExpectClose(want[0].tensor(), out[0].tensor());
      ExpectClose(want[1].tensor(), out[1].tensor());
      if (run == 0) {
        first = out;
        continue;
      }
      // The first run's answers come from the kernels timed after it, as the later ones' (Session::BindAndExecute):
      // the same bits.
      for (size_t o = 0; o < 2; ++o) {
        const Tensor& a = first[o].tensor();
        const Tensor& b = out[o].tensor();
        ASSERT_EQ(a.shape(), b.shape());
        EXPECT_EQ(std::memcmp(a.data<float>(), b.data<float>(), a.nbytes()), 0) << "output " << o;
      }
    }
    decisions = TuningCache::Process()->Decisions();
  }
  // The two nodes queued the same signature in the first run: the first request timed it, the second took its
  // choice from the cache.
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_EQ(decisions[0].signature, decisions[1].signature);
  EXPECT_TRUE(decisions[0].measured);
  EXPECT_FALSE(decisions[1].measured);
  EXPECT_EQ(decisions[0].entry.choice, decisions[1].entry.choice);
}

TEST_F(TunedConv, CreatingASessionBoundsTheMissBudget) {
  // A one-convolution model is created in well under kMissBudgetMs / 2 / kMissTimePerCreationTime (37.5 ms): after
  // its creation, spending half the process's budget leaves nothing for misses.
  auto session = Session::Create(ConvModel(true, kConvModel), {});
  ASSERT_TRUE(session.ok()) << session.status().message();
  EXPECT_TRUE(TuningCache::Process()->MissBudgetLeft());
  TuningCache::Process()->SpendMissTime(TuningCache::kMissBudgetMs / 2);
  EXPECT_FALSE(TuningCache::Process()->MissBudgetLeft());
}

TEST_F(TunedConv, SplitChoiceComputesTheSameConvolutions) {
  // Every convolution of each model forced onto the split candidate through the cache (the signatures a tuning run
  // recorded, their choice rewritten): one-thread convolutions over halves of the output channels, side by side,
  // must give the unoptimized session's result. The models: a plain-input 3x3 and a blocked 1x1; a 1x1 expansion
  // with the depthwise convolution fused as a post-op (each part with its slice of both weights); a depthwise
  // convolution on its own (its input sliced too); a residual sum (each part adds onto its slice of the output).
  for (const char* model : {kConvModel, kDepthwiseModel, kDepthwiseAfter3x3Model, kResidualModel}) {
    SCOPED_TRACE(model);
    fs::remove_all(dir_);
    const Tensor want = Reference(model);
    const size_t convs = model == kDepthwiseAfter3x3Model ? 3 : 2;
    const auto tuned = TuneUntil(2, convs, want, model);
    if (tuned.size() < convs) GTEST_SKIP() << "2-thread timings disturbed by other processes in every try";
    auto any_signature_has = [&](const char* part) {
      return std::any_of(tuned.begin(), tuned.end(),
                         [&](const auto& d) { return d.signature.find(part) != std::string::npos; });
    };
    if (model == kResidualModel) {
      EXPECT_TRUE(any_signature_has(" sum=1"));
    }
    if (model == kDepthwiseModel) {
      EXPECT_TRUE(any_signature_has(" dw="));
    }
    ExpectForcedChoiceMatches(tuned, " split", "split/t2", 2, want, model);
  }
}

// A stride-2 3x3 convolution with asymmetric pads and a Clip, then a 1x1 whose LeakyRelu is fused.
constexpr const char* kStridedModel = R"(
<ir_version: 8, opset_import: ["" : 10]>
g (float[1,32,20,20] x, float[40,32,3,3] w, float[40] b, float[24,40,1,1] w2, float[24] b2) => (float[1,24,10,10] y) {
  c = Conv<pads = [0,1,1,0], strides = [2,2]>(x, w, b)
  r = Clip<min = -0.5, max = 0.5>(c)
  e = Conv(r, w2, b2)
  y = LeakyRelu<alpha = 0.2>(e)
}
)";

TEST_F(TunedConv, OwnDirectChoiceComputesTheSameConvolutions) {
  // Every convolution that has onyx's own direct convolution as a candidate forced onto it through the cache, as the
  // split test above does: a 3x3 and a 1x1 (kConvModel), a residual sum (kResidualModel), a stride-2 3x3 with
  // asymmetric pads and Clip and a 1x1 with LeakyRelu whose channel counts (40, 24) leave partial blocks. Both its
  // orders of the output pixels: rows (odirect) and gathered (ogather).
  if (OwnDirectCandidates() == 0) GTEST_SKIP() << "no own direct convolution on this CPU";
  for (const char* model : {kConvModel, kResidualModel, kStridedModel}) {
    SCOPED_TRACE(model);
    fs::remove_all(dir_);
    const Tensor want = Reference(model);
    const auto tuned = TuneUntil(1, 2, want, model);
    ASSERT_EQ(tuned.size(), 2u);
    ExpectForcedChoiceMatches(tuned, " odirect", "odirect/t1", 1, want, model);
    ExpectForcedChoiceMatches(tuned, " ogather", "ogather/t1", 1, want, model);
  }
}

// 1x1 convolutions: 32 -> 288 channels (two K blocks of the next one) with Relu, 288 -> 32 with the residual sum and
// Relu fused, then a stride-2 one of 32 -> 40 (a partial block) with LeakyRelu; 400 pixels (tiles of 13 and 14 rows),
// 100 after the stride.
constexpr const char* kPointwiseModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,20,20] x, float[288,32,1,1] w, float[288] b, float[32,288,1,1] w2, float[32] b2, float[40,32,1,1] w3,
   float[40] b3) => (float[1,40,10,10] y) {
  e = Conv(x, w, b)
  r = Relu(e)
  c = Conv(r, w2, b2)
  s = Add(c, x)
  t = Relu(s)
  d = Conv<strides = [2,2]>(t, w3, b3)
  y = LeakyRelu<alpha = 0.1>(d)
}
)";

// A dilated 3x3 convolution (pads 2) of 32 -> 48 channels, then a 5x3 one with uneven pads and stride 1x2.
constexpr const char* kDilatedModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,20,20] x, float[48,32,3,3] w, float[48] b, float[24,48,5,3] w2) => (float[1,24,16,10] y) {
  c = Conv<dilations = [2,2], pads = [2,2,2,2]>(x, w, b)
  r = Relu(c)
  y = Conv<pads = [0,1,0,0], strides = [1,2]>(r, w2)
}
)";

TEST_F(TunedConv, OwnGemmChoiceComputesTheSameConvolutions) {
  // Every convolution that has the matrix-product candidate forced onto it through the cache (the others keep their
  // tuned choice), at 1 and 2 threads, against the unoptimized session: 3x3 with padding, a residual sum, strided
  // ones with asymmetric pads and partial blocks, 1x1 ones over several K blocks, dilated and non-square windows.
  if (OwnGemmCandidates() == 0) GTEST_SKIP() << "no matrix-product convolution on this CPU";
  for (const char* model : {kConvModel, kResidualModel, kStridedModel, kPointwiseModel, kDilatedModel}) {
    for (const int threads : {1, 2}) {
      SCOPED_TRACE(std::string(model) + " at " + std::to_string(threads) + " threads");
      fs::remove_all(dir_);
      const Tensor want = Reference(model);
      const auto tuned = TuneUntil(threads, 1, want, model);
      // Each matrix-product candidate as timed: at the session's thread count, or at 1 where the convolution is too
      // small for its thread count to be a choice.
      std::map<std::string, std::string> forced;
      TuningCache::ResetProcess(dir_.string());
      for (const auto& d : tuned) {
        std::string choice = d.entry.choice;
        for (const auto& [name, ms] : d.entry.times) {
          if (name.rfind("ogemm/", 0) == 0 && (choice.rfind("ogemm/", 0) != 0 || name == "ogemm/t2")) choice = name;
        }
        if (choice.rfind("ogemm/", 0) == 0) forced[d.signature] = choice;
        ASSERT_TRUE(TuningCache::Process()->Record(d.signature, {choice, {}}).ok());
      }
      if (forced.empty()) GTEST_SKIP() << "timings disturbed by other processes in every try";
      TuningCache::ResetProcess(dir_.string());
      kernels::SetTuningModeOverride(TuningMode::kCache);
      ExpectClose(want, RunConv(threads, model));
      size_t taken = 0;
      for (const auto& d : TuningCache::Process()->Decisions()) {
        auto it = forced.find(d.signature);
        taken += it != forced.end() && d.entry.choice == it->second ? 1 : 0;
      }
      EXPECT_EQ(taken, forced.size());
    }
  }
}

TEST_F(TunedConv, SeparateDepthwiseChoiceComputesTheSameConvolutions) {
  // The 1x1 expansion with its depthwise convolution fused (kDepthwiseModel) forced onto the separate candidates
  // through the cache (the depthwise convolution as a primitive of its own after the 1x1 one, through a buffer; the
  // 1x1 one oneDNN's or onyx's own), at 1 and 2 threads; the other convolution keeps what its tuning chose. Also a
  // stride-2 depthwise one.
  constexpr const char* kStride2Model = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,20,20] x, float[48,32,1,1] w, float[48] b, float[48,1,3,3] dw, float[48] db) => (float[1,48,10,10] y) {
  e = Conv(x, w, b)
  r = Clip<min = 0.0, max = 6.0>(e)
  d = Conv<group = 48, pads = [1,1,1,1], strides = [2,2]>(r, dw, db)
  y = Clip<min = 0.0, max = 6.0>(d)
}
)";
  std::vector<std::string> kinds{"sepdw"};
  if (OwnDirectCandidates() > 0) kinds.push_back("sepodirect");
  if (OwnGemmCandidates() > 0) kinds.push_back("sepogemm");
  for (const char* model : {kDepthwiseModel, kStride2Model}) {
    for (const int threads : {1, 2}) {
      for (const std::string& kind : kinds) {
        SCOPED_TRACE(std::string(model) + " " + kind + " at " + std::to_string(threads) + " threads");
        fs::remove_all(dir_);
        const Tensor want = Reference(model);
        const auto tuned = TuneUntil(threads, 1, want, model);
        auto fused = std::find_if(tuned.begin(), tuned.end(),
                                  [](const auto& d) { return d.signature.find(" sepdw") != std::string::npos; });
        if (fused == tuned.end()) GTEST_SKIP() << "timings disturbed by other processes in every try";
        TuningCache::ResetProcess(dir_.string());
        for (const auto& d : tuned) {
          const std::string choice = &d == &*fused ? kind + "/t" + std::to_string(threads) : d.entry.choice;
          ASSERT_TRUE(TuningCache::Process()->Record(d.signature, {choice, {}}).ok());
        }
        TuningCache::ResetProcess(dir_.string());
        kernels::SetTuningModeOverride(TuningMode::kCache);
        ExpectClose(want, RunConv(threads, model));
        bool taken = false;
        for (const auto& d : TuningCache::Process()->Decisions()) {
          if (d.signature == fused->signature) taken = d.entry.choice == kind + "/t" + std::to_string(threads);
        }
        EXPECT_TRUE(taken);
      }
    }
  }
}

TEST_F(TunedConv, SwishOnEveryCandidateComputesTheSameConvolutions) {
  // SiLU (Mul(x, Sigmoid(x)), fused as the Swish activation) after each kind of convolution: a 1x1 expansion with a
  // stride-2 depthwise one fused after it (both with SiLU: oneDNN keeps the first as a post-op before its depthwise
  // post-op and leaves the second to onyx; the separate candidates leave both), a 3x3 of 40 channels (a partial block),
  // and a 5x5 depthwise one of its own. Every candidate each tuning timed is forced in turn through the cache, at 1
  // and 2 threads (the split candidate); each must give the unoptimized session's result.
  constexpr const char* kSiluModel = R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,32,20,20] x, float[64,32,1,1] w, float[64] b, float[64,1,3,3] dw, float[64] db, float[40,64,3,3] w2,
   float[40] b2, float[40,1,5,5] dw2) => (float[1,40,10,10] y) {
  e = Conv(x, w, b)
  es = Sigmoid(e)
  em = Mul(e, es)
  d = Conv<group = 64, pads = [1,1,1,1], strides = [2,2]>(em, dw, db)
  ds = Sigmoid(d)
  dm = Mul(ds, d)
  c = Conv<pads = [1,1,1,1]>(dm, w2, b2)
  cs = Sigmoid(c)
  cm = Mul(c, cs)
  f = Conv<group = 40, pads = [2,2,2,2], kernel_shape = [5,5]>(cm, dw2)
  fs = Sigmoid(f)
  y = Mul(f, fs)
}
)";
  const Tensor want = Reference(kSiluModel);
  for (const int threads : {1, 2}) {
    fs::remove_all(dir_);
    // The pair and the 3x3 convolution have choices (the 5x5 depthwise one runs on oneDNN's kernel alone).
    const auto tuned = TuneUntil(threads, 2, want, kSiluModel);
    if (tuned.size() < 2) GTEST_SKIP() << "timings disturbed by other processes in every try: " << tuned.size();
    size_t forced = 0;
    for (const auto& target : tuned) {
      EXPECT_NE(target.signature.find("Swish2"), std::string::npos) << target.signature;
      for (const auto& candidate : target.entry.times) {
        SCOPED_TRACE(target.signature + " forced onto " + candidate.candidate);
        TuningCache::ResetProcess(dir_.string());
        for (const auto& d : tuned) {
          const std::string& choice = &d == &target ? candidate.candidate : d.entry.choice;
          ASSERT_TRUE(TuningCache::Process()->Record(d.signature, {choice, {}}).ok());
        }
        TuningCache::ResetProcess(dir_.string());
        kernels::SetTuningModeOverride(TuningMode::kCache);
        ExpectClose(want, RunConv(threads, kSiluModel));
        ++forced;
      }
    }
    EXPECT_GE(forced, 4u);  // at least oneDNN's and the separate depthwise for the pair, two for the 3x3
  }
}

TEST_F(TunedConv, OffModeChangesNothing) {
  if (!HasWinograd()) GTEST_SKIP() << "no Winograd candidate: no choice at 1 thread";
  kernels::SetTuningModeOverride(TuningMode::kOff);
  ExpectClose(Reference(), RunConv(1));
  EXPECT_TRUE(TuningCache::Process()->Decisions().empty());
  EXPECT_FALSE(fs::exists(TuningCache::Process()->path()));
  // A file present is neither read nor written.
  ASSERT_FALSE(TuneUntil(1, 1, Reference()).empty());
  const std::string before = ReadText(TuningCache::Process()->path());
  TuningCache::ResetProcess(dir_.string());
  kernels::SetTuningModeOverride(TuningMode::kOff);
  ExpectClose(Reference(), RunConv(1));
  EXPECT_TRUE(TuningCache::Process()->Decisions().empty());
  EXPECT_EQ(ReadText(TuningCache::Process()->path()), before);
}

// Runs of one session on several threads while its deferred tuning may change kernels (cache mode, a fresh cache), on
// a real model whose convolutions have candidates that round differently (PaddleOCR's MobileNet-v3 classifier, from
// ../shared): every run's output is bit-identical to every other's. A run in flight while another run's timing
// installed a new implementation used to mix the kernels of before and after (outputs 1 ulp apart: examples/embed).
TEST_F(TunedConv, ConcurrentRunsAgreeBitwiseWhileTuningChangesKernels) {
  const std::string dir = std::string(ONYX_SHARED_DIR) + "/models/onnx/";
  const std::string model = dir + "ch_ppocr_mobile_v2.0_cls_infer.onnx";
  const std::string input = dir + "testdata/ch_ppocr_mobile_v2.0_cls_infer/test_data_set_0/input_0.pb";
  if (!fs::exists(model) || !fs::exists(input)) GTEST_SKIP() << "no " << model;
  auto x = format::LoadTensorFile(input);
  ASSERT_TRUE(x.ok()) << x.status().message();
  kernels::SetTuningModeOverride(TuningMode::kCache);
  for (int round = 0; round < 3; ++round) {
    TuningCache::ResetProcess((dir_ / ("round" + std::to_string(round))).string());
    SessionOptions options;
    options.intra_op_num_threads = 1;
    auto session = Session::Load(model, options);
    ASSERT_TRUE(session.ok()) << session.status().message();
    const std::string name = (*session)->model().graph.inputs.at(0).name;
    constexpr int kThreads = 4, kRuns = 3;
    std::vector<std::vector<Tensor>> outputs(kThreads);
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t) {
      workers.emplace_back([&, t] {
        for (int r = 0; r < kRuns; ++r) {
          std::vector<Value> out;
          if ((*session)->Run({{name, Value(*x)}}, {}, &out).ok()) {
            outputs[static_cast<size_t>(t)].push_back(out[0].tensor());
          }
        }
      });
    }
    for (auto& w : workers) w.join();
    const Tensor& first = outputs[0].at(0);
    for (const auto& per_thread : outputs) {
      ASSERT_EQ(per_thread.size(), static_cast<size_t>(kRuns));
      for (const Tensor& y : per_thread) {
        ASSERT_EQ(y.shape(), first.shape());
        ASSERT_EQ(std::memcmp(y.raw(), first.raw(), first.nbytes()), 0) << "round " << round;
      }
    }
  }
}

}  // namespace
}  // namespace onyx
