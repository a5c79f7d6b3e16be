// Helpers shared by the libFuzzer targets: a private scratch folder per process for the readers that take a path
// (the converters), and a one-line way to ignore a Result (a reader may refuse its input; it must never crash).
#pragma once

#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace onyx::fuzz {

// A folder under /dev/shm (memory-backed: the converters read a fresh file per execution) named after the process.
inline const std::filesystem::path& ScratchDir() {
  static const std::filesystem::path dir = [] {
    std::filesystem::path base =
        std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    std::filesystem::path d = base / ("onyx-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Writes `bytes` to ScratchDir()/name and returns the path.
inline std::string WriteScratch(const std::string& name, std::string_view bytes) {
  std::filesystem::path p = ScratchDir() / name;
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return p.string();
}

// The Keras readers run libhdf5 in a forked child (src/convert/keras/isolated_read.h): HDF5 1.10 trusts the
// addresses a file holds, so a crafted file can corrupt memory inside the library, which the child contains (the
// parent reports a corrupt file). In a fuzz build, the child inherits libFuzzer's crash handlers and would report
// such a contained failure as a crash of the target. So a forked child dies quietly instead: sanitizer reports still
// print, the child exits, the parent sees the failure as the product does. What the fuzzer checks here is
// everything around the isolated read (zip handling, the JSON config, the converter) and the isolation itself.
inline void ContainForkedChildCrashes() {
  static const bool installed = [] {
    ::pthread_atfork(nullptr, nullptr, [] {
      __sanitizer_set_death_callback([] { ::_exit(86); });
      for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) ::signal(sig, SIG_DFL);
    });
    return true;
  }();
  (void)installed;
}

inline std::string_view AsBytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace onyx::fuzz
