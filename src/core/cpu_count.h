// How many CPUs this process may actually use: the default number of threads of a session, a server and a batch.
//
// Why not std::thread::hardware_concurrency(): it counts the machine's online CPUs, while a process pinned with
// taskset/numactl or running in a container with a CPU limit (Kubernetes `resources.limits.cpu`, `docker --cpus`)
// gets fewer. Running more busy threads than that makes each parallel region wait for threads that are not
// scheduled: a 2-thread run on one usable CPU was measured 5-200x slower than a 1-thread one.
#pragma once

#include <optional>
#include <string_view>

namespace onyx {

// min(CPUs in the affinity mask, the cgroup's CPU quota rounded up), at least 1; read once per process.
int UsableCpuCount();

// The pieces, separated so that they can be tested without a cgroup.
// A cgroup v2 `cpu.max` file ("max 100000" or "150000 100000"): the quota in CPUs, nullopt for no limit or junk.
std::optional<double> CgroupV2CpuQuota(std::string_view cpu_max);
// A cgroup v1 pair cpu.cfs_quota_us / cpu.cfs_period_us ("-1" means no limit).
std::optional<double> CgroupV1CpuQuota(std::string_view quota_us, std::string_view period_us);
// The CPUs the process may use given its affinity count and an optional quota (a quota of 1.5 CPUs gives 2).
int UsableCpuCountFrom(int affinity_cpus, std::optional<double> quota_cpus);
// The tightest quota on the path from the process's cgroup up to the root, reading files below `cgroup_root`
// (normally /sys/fs/cgroup) with the process's /proc/self/cgroup text; nullopt when none limits it.
std::optional<double> CgroupCpuQuota(std::string_view proc_self_cgroup, const char* cgroup_root);

}  // namespace onyx
