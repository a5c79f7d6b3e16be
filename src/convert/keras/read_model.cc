// Form detection and the helpers the three readers share.
#include <cctype>
#include <cstring>

#include "convert/keras/isolated_read.h"
#include "convert/keras/keras_file.h"
#include "convert/keras/limits.h"
#include "core/safe_file.h"

namespace onyx::convert::keras {

std::string_view SourceFormatName(SourceFormat f) {
  switch (f) {
    case SourceFormat::kKeras3:
      return "Keras 3 .keras";
    case SourceFormat::kKerasH5:
      return "Keras HDF5 .h5";
    case SourceFormat::kTfjs:
      return "TF.js layers model";
  }
  return "?";
}

Result<nlohmann::json> ParseJson(const std::string& text, const std::string& where) {
  ONYX_RETURN_IF_ERROR(CheckJsonDepth(text, where));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument(where + ": invalid JSON");
  return j;
}

std::string KerasSnakeCase(const std::string& class_name) {
  std::string s;
  for (char c : class_name) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') s += c;
  }
  // (.)([A-Z][a-z]+) -> \1_\2
  std::string a;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i > 0 && std::isupper(static_cast<unsigned char>(s[i])) && i + 1 < s.size() &&
        std::islower(static_cast<unsigned char>(s[i + 1]))) {
      a += '_';
    }
    a += s[i];
  }
  // ([a-z])([A-Z]) -> \1_\2, then lower case.
  std::string b;
  for (size_t i = 0; i < a.size(); ++i) {
    if (i > 0 && std::isupper(static_cast<unsigned char>(a[i])) && std::islower(static_cast<unsigned char>(a[i - 1]))) {
      b += '_';
    }
    b += static_cast<char>(std::tolower(static_cast<unsigned char>(a[i])));
  }
  return b;
}

std::string OwnerOfWeight(const std::string& weight_name) { return weight_name.substr(0, weight_name.find('/')); }

Result<KerasModelFile> ReadKerasModel(const std::string& path) {
  // A regular file only (a folder or FIFO named by mistake is a clear error, not a read that fails or blocks).
  ONYX_ASSIGN_OR_RETURN(ReadOnlyFile f, ReadOnlyFile::Open(path));
  char magic[8] = {};
  const size_t got = f.size() >= 8 ? 8 : static_cast<size_t>(f.size());
  ONYX_RETURN_IF_ERROR(f.ReadAt(0, got, magic));
  // Both forms that go through libhdf5 run in a child process (isolated_read.h: the library can crash on a corrupt
  // file).
  if (got >= 4 && std::memcmp(magic, "PK\x03\x04", 4) == 0) return ReadInChildProcess(path, ReadKeras3);
  if (got == 8 && std::memcmp(magic, "\x89HDF\r\n\x1a\n", 8) == 0) return ReadInChildProcess(path, ReadKerasH5);
  // HDF5 files may carry a user block before the signature; let the library decide for .h5 names.
  if (path.ends_with(".h5") || path.ends_with(".hdf5")) return ReadInChildProcess(path, ReadKerasH5);
  if (path.ends_with(".keras")) return ReadInChildProcess(path, ReadKeras3);
  return ReadTfjsLayersModel(path);
}

}  // namespace onyx::convert::keras
