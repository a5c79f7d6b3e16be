#include "core/cpu_count.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace onyx {
namespace {

std::optional<double> ParsePositive(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v <= 0) return std::nullopt;
  return static_cast<double>(v);
}

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  if (s.size() > 4096) return std::nullopt;  // a cgroup control file is one short line
  return s;
}

std::optional<double> Tighter(std::optional<double> a, std::optional<double> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

// "/a/b" -> {"/a/b", "/a", ""}: the cgroup and its ancestors (a parent's limit binds the children too).
std::vector<std::string> SelfAndAncestors(std::string path) {
  std::vector<std::string> out;
  while (!path.empty() && path != "/") {
    out.push_back(path);
    const size_t slash = path.rfind('/');
    path = slash == std::string::npos ? std::string() : path.substr(0, slash);
  }
  out.push_back("");
  return out;
}

int AffinityCpuCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

std::optional<double> CgroupV2CpuQuota(std::string_view cpu_max) {
  const size_t space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::optional<double> quota = ParsePositive(cpu_max.substr(0, space));  // "max" -> nullopt
  const std::optional<double> period = ParsePositive(cpu_max.substr(space + 1));
  if (!quota || !period) return std::nullopt;
  return *quota / *period;
}

std::optional<double> CgroupV1CpuQuota(std::string_view quota_us, std::string_view period_us) {
  const std::optional<double> quota = ParsePositive(quota_us);  // "-1" -> nullopt
  const std::optional<double> period = ParsePositive(period_us);
  if (!quota || !period) return std::nullopt;
  return *quota / *period;
}

int UsableCpuCountFrom(int affinity_cpus, std::optional<double> quota_cpus) {
  int n = std::max(affinity_cpus, 1);
  if (quota_cpus && *quota_cpus > 0) {
    // A fractional quota still lets one more thread make progress (1.5 CPUs: two threads at 75% each).
    const double rounded = std::ceil(*quota_cpus - 1e-9);
    if (rounded < n) n = std::max(static_cast<int>(rounded), 1);
  }
  return n;
}

std::optional<double> CgroupCpuQuota(std::string_view proc_self_cgroup, const char* cgroup_root) {
  std::optional<double> tightest;
  size_t start = 0;
  while (start < proc_self_cgroup.size()) {
    size_t end = proc_self_cgroup.find('\n', start);
    if (end == std::string_view::npos) end = proc_self_cgroup.size();
    const std::string_view line = proc_self_cgroup.substr(start, end - start);
    start = end + 1;
    // "hierarchy-id:controllers:path"; v2 is "0::/path", v1 names its controllers ("4:cpu,cpuacct:/path").
    const size_t c1 = line.find(':');
    const size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    const std::string_view controllers = line.substr(c1 + 1, c2 - c1 - 1);
    const std::string path(line.substr(c2 + 1));
    if (path.find("..") != std::string::npos) continue;
    if (line.substr(0, c1) == "0" && controllers.empty()) {
      for (const std::string& dir : SelfAndAncestors(path)) {
        if (auto text = ReadSmallFile(std::string(cgroup_root) + dir + "/cpu.max"))
          tightest = Tighter(tightest, CgroupV2CpuQuota(*text));
      }
      continue;
    }
    bool has_cpu = false;
    for (size_t p = 0; p <= controllers.size();) {
      size_t q = controllers.find(',', p);
      if (q == std::string_view::npos) q = controllers.size();
      if (controllers.substr(p, q - p) == "cpu") has_cpu = true;
      p = q + 1;
    }
    if (!has_cpu) continue;
    // v1 mounts the controller at cpu,cpuacct (Debian) or cpu; inside a container the path is often "/" already.
    for (const char* mount : {"/cpu,cpuacct", "/cpu"}) {
      for (const std::string& dir : SelfAndAncestors(path)) {
        const std::string base = std::string(cgroup_root) + mount + dir;
        auto quota = ReadSmallFile(base + "/cpu.cfs_quota_us");
        auto period = ReadSmallFile(base + "/cpu.cfs_period_us");
        if (quota && period) tightest = Tighter(tightest, CgroupV1CpuQuota(*quota, *period));
      }
    }
  }
  return tightest;
}

int UsableCpuCount() {
  static const int count = [] {
    std::optional<double> quota;
    if (auto self = ReadSmallFile("/proc/self/cgroup")) quota = CgroupCpuQuota(*self, "/sys/fs/cgroup");
    return UsableCpuCountFrom(AffinityCpuCount(), quota);
  }();
  return count;
}

}  // namespace onyx
