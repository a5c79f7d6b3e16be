// Reading members of a zip archive (a Keras 3 .keras file) through libzip.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace onyx::convert::keras {

class ZipArchive {
 public:
  ~ZipArchive();
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  static Result<std::unique_ptr<ZipArchive>> Open(const std::string& path);
  std::vector<std::string> Names() const;
  bool Has(const std::string& name) const;
  // A member's bytes; members that would inflate to more than `max_bytes` (default: MaxZipEntryBytes(), limits.h)
  // are refused before inflating.
  Result<std::string> Read(const std::string& name, uint64_t max_bytes = 0) const;

 private:
  ZipArchive(void* zip, std::string path) : zip_(zip), path_(std::move(path)) {}
  void* zip_;  // zip_t*
  std::string path_;
};

}  // namespace onyx::convert::keras
