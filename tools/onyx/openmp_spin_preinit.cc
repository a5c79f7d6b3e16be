// The CLI's OpenMP wait policy (core/openmp_spin.h says why): libgomp reads GOMP_SPINCOUNT in its initializer,
// which runs before main() and before any initializer of this executable, except the ELF preinit array. There,
// libc's environment is not set up yet (a setenv would be lost), so the CLI re-executes itself once with the
// variable added to the environment it was given: loading is done twice (~15 ms), so only for the commands that
// run models with threads.
#include <unistd.h>

#include <charconv>
#include <cstddef>
#include <cstring>
#include <initializer_list>

#include "core/openmp_spin.h"

namespace {

bool RunsModels(const char* verb) {
  for (const char* v : {"run", "bench", "serve", "batch", "compare", "quantize", "tune", "conformance"}) {
    if (std::strcmp(verb, v) == 0) return true;
  }
  return false;
}

void ReexecWithOpenMpSpin(int argc, char** argv, char** envp) {
  if (argc < 2 || argv == nullptr || !RunsModels(argv[1]) || !onyx::OpenMpSpinIsOursToSet(envp)) return;
  // "GOMP_SPINCOUNT=<count>", without stdio (not initialized yet either; to_chars needs nothing).
  static char entry[64] = "GOMP_SPINCOUNT=";
  const size_t name = std::strlen(entry);
  *std::to_chars(entry + name, entry + sizeof entry - 1, onyx::DefaultOpenMpSpinCount()).ptr = '\0';
  constexpr size_t kCapacity = 8192;  // environments larger than this keep libgomp's default
  static char* environment[kCapacity];
  size_t n = 0;
  while (envp[n] != nullptr) {
    if (n + 2 >= kCapacity) return;
    environment[n] = envp[n];
    ++n;
  }
  environment[n] = entry;
  environment[n + 1] = nullptr;
  execve("/proc/self/exe", argv, environment);
  // No /proc (or exec refused): run on with libgomp's own spin count.
}

}  // namespace

__attribute__((section(".preinit_array"),
               used)) static void (*const kReexecWithOpenMpSpin)(int, char**, char**) = ReexecWithOpenMpSpin;
