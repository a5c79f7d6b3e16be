// The CLI's OpenMP wait policy (core/openmp_spin.h says why): libgomp reads GOMP_SPINCOUNT in its initializer,
// which runs before main() and before any initializer of this executable, except the ELF preinit array. There,
// libc's environment is not set up yet (a setenv would be lost), so the CLI re-executes itself once with the
// variable added to the environment it was given: loading is done twice (~15 ms), so only for the commands that
// run models with threads.
#include <unistd.h>

#include <cstddef>
#include <initializer_list>

#include "core/openmp_spin.h"

namespace {

// "GOMP_SPINCOUNT=<count>" without the C library's formatting (not initialized yet either).
void FormatEntry(long count, char* out, size_t capacity) {
  static const char kName[] = "GOMP_SPINCOUNT=";
  size_t n = 0;
  for (const char* c = kName; *c != '\0' && n + 1 < capacity; ++c) out[n++] = *c;
  char digits[24];
  size_t d = 0;
  do {
    digits[d++] = static_cast<char>('0' + count % 10);
    count /= 10;
  } while (count > 0 && d < sizeof digits);
  while (d > 0 && n + 1 < capacity) out[n++] = digits[--d];
  out[n] = '\0';
}

bool Equal(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

bool RunsModels(const char* verb) {
  for (const char* v : {"run", "bench", "serve", "batch", "compare", "quantize", "tune", "conformance"}) {
    if (Equal(verb, v)) return true;
  }
  return false;
}

void ReexecWithOpenMpSpin(int argc, char** argv, char** envp) {
  if (argc < 2 || argv == nullptr || !RunsModels(argv[1]) || !onyx::OpenMpSpinIsOursToSet(envp)) return;
  static char entry[64];
  FormatEntry(onyx::DefaultOpenMpSpinCount(), entry, sizeof entry);
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
