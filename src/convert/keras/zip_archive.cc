#include "convert/keras/zip_archive.h"

#include <zip.h>

#include <new>

#include "convert/keras/limits.h"

namespace onyx::convert::keras {

ZipArchive::~ZipArchive() {
  if (zip_) zip_discard(static_cast<zip_t*>(zip_));
}

Result<std::unique_ptr<ZipArchive>> ZipArchive::Open(const std::string& path) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &err);
  if (!z) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, err);
    std::string msg = path + ": not a readable zip archive (" + zip_error_strerror(&ze) + ")";
    zip_error_fini(&ze);
    return InvalidArgument(msg);
  }
  return std::unique_ptr<ZipArchive>(new ZipArchive(z, path));
}

std::vector<std::string> ZipArchive::Names() const {
  std::vector<std::string> names;
  auto* z = static_cast<zip_t*>(zip_);
  const zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* name = zip_get_name(z, static_cast<zip_uint64_t>(i), 0);
    if (name) names.emplace_back(name);
  }
  return names;
}

bool ZipArchive::Has(const std::string& name) const {
  return zip_name_locate(static_cast<zip_t*>(zip_), name.c_str(), 0) >= 0;
}

Result<std::string> ZipArchive::Read(const std::string& name, uint64_t max_bytes) const {
  auto* z = static_cast<zip_t*>(zip_);
  const std::string where = path_ + ": member '" + name + "'";
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat(z, name.c_str(), 0, &st) != 0) return NotFound(where + " not found");
  if (!(st.valid & ZIP_STAT_SIZE)) return InvalidArgument(where + ": the archive does not give its size");
  const uint64_t limit = max_bytes != 0 ? max_bytes : MaxZipEntryBytes();
  if (st.size > limit) {
    return InvalidArgument(
        where + " inflates to " + std::to_string(st.size) + " bytes, more than the limit of " + std::to_string(limit) +
        (max_bytes != 0 ? std::string(" for this member") : std::string(" (raise it with ONYX_MAX_ZIP_ENTRY_BYTES)")));
  }
  // Refused before inflating: deflate cannot expand more than 1032:1 and a stored member is its bytes, so a member
  // claiming more than that over its compressed bytes is corrupt (or a zip bomb).
  if ((st.valid & ZIP_STAT_COMP_SIZE) && (st.valid & ZIP_STAT_COMP_METHOD)) {
    const bool stored_bad = st.comp_method == ZIP_CM_STORE && st.comp_size != st.size;
    const bool deflate_bad = st.comp_method == ZIP_CM_DEFLATE && st.size / 1032 > st.comp_size + 1;
    if (stored_bad || deflate_bad) {
      return InvalidArgument(where + " claims " + std::to_string(st.size) + " bytes from " +
                             std::to_string(st.comp_size) + " in the archive (corrupt archive?)");
    }
  }
  std::string data;
  try {
    data.resize(static_cast<size_t>(st.size));
  } catch (const std::bad_alloc&) {
    return InvalidArgument(where + ": out of memory for " + std::to_string(st.size) + " bytes");
  }
  zip_file_t* f = zip_fopen(z, name.c_str(), 0);
  if (!f) return InvalidArgument(where + ": cannot open (" + zip_strerror(z) + ")");
  zip_int64_t got = data.empty() ? 0 : zip_fread(f, data.data(), st.size);
  zip_fclose(f);
  if (got < 0 || static_cast<zip_uint64_t>(got) != st.size) return InvalidArgument(where + ": truncated or corrupt");
  return data;
}

}  // namespace onyx::convert::keras
