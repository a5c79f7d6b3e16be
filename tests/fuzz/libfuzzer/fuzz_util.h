// Helpers shared by the libFuzzer targets: a private scratch folder per process for the readers that take a path
// (the converters), and a one-line way to ignore a Result (a reader may refuse its input; it must never crash).
#pragma once

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
    std::filesystem::path base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
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

inline std::string_view AsBytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace onyx::fuzz
