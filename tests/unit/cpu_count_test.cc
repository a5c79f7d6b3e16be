// The default thread count (core/cpu_count.h) and the OpenMP wait policy (core/openmp_spin.h): cgroup v1/v2 quota
// files of a fake hierarchy written here, affinity + quota combined, and the spin count's clamps and environment
// rules.
#include "core/cpu_count.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/openmp_spin.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

class FakeCgroup : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("onyx_cgroup_" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST(CpuCount, ParsesCgroupV2CpuMax) {
  EXPECT_EQ(CgroupV2CpuQuota("max 100000\n"), std::nullopt);
  EXPECT_DOUBLE_EQ(*CgroupV2CpuQuota("200000 100000\n"), 2.0);
  EXPECT_DOUBLE_EQ(*CgroupV2CpuQuota("150000 100000"), 1.5);
  EXPECT_EQ(CgroupV2CpuQuota(""), std::nullopt);
  EXPECT_EQ(CgroupV2CpuQuota("junk"), std::nullopt);
  EXPECT_EQ(CgroupV2CpuQuota("100000 0"), std::nullopt);
  EXPECT_EQ(CgroupV2CpuQuota("-5 100000"), std::nullopt);
  EXPECT_EQ(CgroupV2CpuQuota("12x 100000"), std::nullopt);
}

TEST(CpuCount, ParsesCgroupV1Quota) {
  EXPECT_EQ(CgroupV1CpuQuota("-1\n", "100000\n"), std::nullopt);
  EXPECT_DOUBLE_EQ(*CgroupV1CpuQuota("50000\n", "100000\n"), 0.5);
  EXPECT_EQ(CgroupV1CpuQuota("50000", "junk"), std::nullopt);
}

TEST(CpuCount, CombinesAffinityAndQuota) {
  EXPECT_EQ(UsableCpuCountFrom(64, std::nullopt), 64);
  EXPECT_EQ(UsableCpuCountFrom(64, 2.0), 2);
  EXPECT_EQ(UsableCpuCountFrom(64, 1.5), 2);  // a fractional CPU still runs a second thread part of the time
  EXPECT_EQ(UsableCpuCountFrom(64, 0.5), 1);
  EXPECT_EQ(UsableCpuCountFrom(4, 16.0), 4);  // the quota never raises the count past the affinity mask
  EXPECT_EQ(UsableCpuCountFrom(0, std::nullopt), 1);
}

TEST_F(FakeCgroup, CgroupV2TightestOnThePathWins) {
  Write(root_ / "cpu.max", "max 100000\n");
  Write(root_ / "kubepods" / "cpu.max", "400000 100000\n");
  Write(root_ / "kubepods" / "pod1" / "cpu.max", "150000 100000\n");
  Write(root_ / "kubepods" / "pod1" / "c1" / "cpu.max", "max 100000\n");
  auto quota = CgroupCpuQuota("0::/kubepods/pod1/c1\n", root_.c_str());
  ASSERT_TRUE(quota.has_value());
  EXPECT_DOUBLE_EQ(*quota, 1.5);
  // A container with its own cgroup namespace sees itself at "/".
  Write(root_ / "cpu.max", "300000 100000\n");
  EXPECT_DOUBLE_EQ(*CgroupCpuQuota("0::/\n", root_.c_str()), 3.0);
}

TEST_F(FakeCgroup, CgroupV1QuotaUnderItsMount) {
  Write(root_ / "cpu,cpuacct" / "docker" / "abc" / "cpu.cfs_quota_us", "200000\n");
  Write(root_ / "cpu,cpuacct" / "docker" / "abc" / "cpu.cfs_period_us", "100000\n");
  const std::string self = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n";
  auto quota = CgroupCpuQuota(self, root_.c_str());
  ASSERT_TRUE(quota.has_value());
  EXPECT_DOUBLE_EQ(*quota, 2.0);
  // No quota files (or -1): no limit.
  EXPECT_EQ(CgroupCpuQuota("4:cpu,cpuacct:/other\n", root_.c_str()), std::nullopt);
  Write(root_ / "cpu" / "cpu.cfs_quota_us", "-1\n");
  Write(root_ / "cpu" / "cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(CgroupCpuQuota("3:cpu:/\n", root_.c_str()), std::nullopt);
}

TEST_F(FakeCgroup, IgnoresPathsThatClimbOut) {
  Write(root_ / "cpu.max", "100000 100000\n");
  EXPECT_EQ(CgroupCpuQuota("0::/../../etc\n", (root_ / "sub").c_str()), std::nullopt);
  EXPECT_EQ(CgroupCpuQuota("garbage without colons", root_.c_str()), std::nullopt);
}

TEST(CpuCount, ProcessCountIsWithinTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  EXPECT_GE(UsableCpuCount(), 1);
  EXPECT_LE(UsableCpuCount(), CPU_COUNT(&set));
}

TEST(OpenMpSpin, CountLastsTheBudgetWithinLibgompsBounds) {
  EXPECT_EQ(OpenMpSpinCountFor(10.0, 100.0), 10000);
  EXPECT_EQ(OpenMpSpinCountFor(150.0, 100.0), 1000);   // slow pause: never below libgomp's throttled count
  EXPECT_EQ(OpenMpSpinCountFor(0.01, 100.0), 300000);  // never above its default
  EXPECT_EQ(OpenMpSpinCountFor(0.0, 100.0), 300000);   // an unusable measurement keeps the default
  const double ns = MeasureSpinIterationNanoseconds();
  EXPECT_GT(ns, 0.0);
  EXPECT_LT(ns, 10000.0);
  const long count = DefaultOpenMpSpinCount();
  EXPECT_GE(count, 1000);
  EXPECT_LE(count, 300000);
}

TEST(OpenMpSpin, ReadsTheOtherRunnableTasksFromLoadavg) {
  EXPECT_EQ(OtherRunnableTasksIn("0.52 0.58 0.59 1/467 12345\n"), 0);
  EXPECT_EQ(OtherRunnableTasksIn("2.00 1.00 0.50 3/90 7"), 2);
  EXPECT_EQ(OtherRunnableTasksIn("0.00 0.00 0.00 12/1000 1"), 11);
  EXPECT_EQ(OtherRunnableTasksIn("0.52 0.58 0.59 0/467 12345"), -1);  // the caller runs: never 0
  EXPECT_EQ(OtherRunnableTasksIn("0.52 0.58 0.59"), -1);
  EXPECT_EQ(OtherRunnableTasksIn("0.52 0.58 0.59 x/467 1"), -1);
  EXPECT_EQ(OtherRunnableTasksIn("0.52 0.58 0.59 3 1"), -1);
  EXPECT_EQ(OtherRunnableTasksIn(""), -1);
}

TEST(OpenMpSpin, SeesABusyThreadAsAnotherRunnableTask) {
  // A thread that never blocks is runnable in every sample, whatever else the machine does.
  std::atomic<bool> stop{false};
  std::atomic<bool> started{false};
  std::thread busy([&] {
    started = true;
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  while (!started) std::this_thread::yield();
  const int others = OtherRunnableTasks();
  stop = true;
  busy.join();
  EXPECT_GE(others, 1);
}

TEST(OpenMpSpin, LeavesAnExplicitChoiceAlone) {
  auto ours = [](std::vector<const char*> env) {
    env.push_back(nullptr);
    return OpenMpSpinIsOursToSet(env.data());
  };
  EXPECT_TRUE(ours({"PATH=/usr/bin", "HOME=/root"}));
  EXPECT_FALSE(ours({"PATH=/usr/bin", "GOMP_SPINCOUNT=5"}));
  EXPECT_FALSE(ours({"OMP_WAIT_POLICY=passive"}));
  EXPECT_FALSE(ours({"ONYX_OPENMP_SPIN=default"}));
  EXPECT_TRUE(ours({"ONYX_OPENMP_SPIN=onyx", "GOMP_SPINCOUNTX=1"}));
  EXPECT_FALSE(ours({"LD_PRELOAD=/usr/libexec/valgrind/vgpreload_core-amd64-linux.so"}));
  EXPECT_FALSE(OpenMpSpinIsOursToSet(nullptr));
}

}  // namespace
}  // namespace onyx
