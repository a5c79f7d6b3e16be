#include "core/openmp_spin.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace onyx {
namespace {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

double NowNanoseconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// The value of `name` in `envp`, or nullptr.
const char* Lookup(const char* const* envp, const char* name) {
  const size_t length = std::strlen(name);
  for (const char* const* e = envp; *e != nullptr; ++e) {
    if (std::strncmp(*e, name, length) == 0 && (*e)[length] == '=') return *e + length + 1;
  }
  return nullptr;
}

}  // namespace

long OpenMpSpinCountFor(double nanoseconds_per_iteration, double micros) {
  constexpr long kMin = 1000, kMax = 300000;
  if (!(nanoseconds_per_iteration > 0)) return kMax;
  const double count = micros * 1000.0 / nanoseconds_per_iteration;
  if (count < kMin) return kMin;
  if (count > kMax) return kMax;
  return static_cast<long>(count);
}

double MeasureSpinIterationNanoseconds() {
  // libgomp's loop: load the flag, compare, pause. The best of 3 drops a run an interrupt stretched.
  std::atomic<int> flag{0};
  constexpr int kIterations = 2000;
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const double t0 = NowNanoseconds();
    for (int i = 0; i < kIterations; ++i) {
      if (flag.load(std::memory_order_relaxed) != 0) break;
      CpuRelax();
    }
    const double per = (NowNanoseconds() - t0) / kIterations;
    if (rep == 0 || per < best) best = per;
  }
  return best;
}

int OtherRunnableTasksIn(const char* loadavg) {
  // The fourth field, "running/total".
  const char* p = loadavg;
  for (int field = 0; field < 3; ++field) {
    while (*p == ' ') ++p;
    while (*p != ' ' && *p != '\0') ++p;
  }
  while (*p == ' ') ++p;
  if (*p < '0' || *p > '9') return -1;
  long running = 0;
  for (; *p >= '0' && *p <= '9'; ++p) {
    running = running * 10 + (*p - '0');
    if (running > 1000000) return -1;
  }
  if (*p != '/' || running < 1) return -1;
  return static_cast<int>(running - 1);
}

int OtherRunnableTasks() {
  int least = -1;
  for (int sample = 0; sample < 4; ++sample) {
    if (sample > 0) {
      const timespec pause{0, 250000};
      nanosleep(&pause, nullptr);
    }
    const int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char line[128];
    const ssize_t n = read(fd, line, sizeof line - 1);
    close(fd);
    if (n <= 0) return -1;
    line[n] = '\0';
    const int others = OtherRunnableTasksIn(line);
    if (others < 0) return -1;
    if (least < 0 || others < least) least = others;
  }
  return least;
}

long DefaultOpenMpSpinCount() {
  const double budget = OtherRunnableTasks() == 0 ? kOpenMpSpinOwnMicroseconds : kOpenMpSpinSharedMicroseconds;
  return OpenMpSpinCountFor(MeasureSpinIterationNanoseconds(), budget);
}

bool OpenMpSpinIsOursToSet(const char* const* envp) {
  if (envp == nullptr) return false;
  if (Lookup(envp, "GOMP_SPINCOUNT") != nullptr || Lookup(envp, "OMP_WAIT_POLICY") != nullptr) return false;
  const char* choice = Lookup(envp, "ONYX_OPENMP_SPIN");
  if (choice != nullptr && std::strcmp(choice, "default") == 0) return false;
  const char* preload = Lookup(envp, "LD_PRELOAD");
  if (preload != nullptr && std::strstr(preload, "vgpreload") != nullptr) return false;
  return true;
}

}  // namespace onyx
