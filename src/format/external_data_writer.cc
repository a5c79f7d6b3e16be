#include "format/external_data_writer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>

namespace onyx::format {

Result<ExternalDataWriter> ExternalDataWriter::Create(const std::string& dir, const std::string& location,
                                                      int64_t threshold, int64_t alignment) {
  ONYX_ASSIGN_OR_RETURN(AtomicFileWriter file, AtomicFileWriter::Create(dir, location, "external data"));
  return ExternalDataWriter(std::move(file), location, std::max<int64_t>(threshold, 0),
                            std::max<int64_t>(alignment, 1));
}

bool ExternalDataWriter::Takes(const Tensor& t) const {
  return t.defined() && t.type() != DataType::kString && static_cast<int64_t>(t.nbytes()) >= threshold_;
}

namespace {

// Tells the kernel that pages of `data` already written out will not be needed soon. On memory mapped from a file
// (the input's external data) the clean pages are reclaimed at once, so that saving a model larger than memory does
// not keep it all resident (they fault back in from the file if read again). MADV_PAGEOUT never discards contents:
// anonymous memory is at most swapped out, and stays as it is on a machine without swap.
void ReleaseWritten(const void* data, size_t n) {
#ifdef MADV_PAGEOUT
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + n) & ~(page - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_PAGEOUT);
#else
  (void)data;
  (void)n;
#endif
}

}  // namespace

void ExternalDataWriter::Write(const Tensor& t, pb::TensorProto* p) {
  const uint64_t align = static_cast<uint64_t>(alignment_);
  const uint64_t offset = (offset_ + align - 1) / align * align;
  const size_t n = t.nbytes();
  if (error_.ok()) {
    // In 256 MiB pieces, each released once written, so that a mapped input is streamed rather than held.
    constexpr size_t kPiece = size_t{256} << 20;
    const char* src = static_cast<const char*>(t.raw());
    for (size_t done = 0; done < n && error_.ok(); done += kPiece) {
      const size_t len = std::min(kPiece, n - done);
      error_ = file_.WriteAt(offset + done, src + done, len);
      if (n > kPiece) ReleaseWritten(src + done, len);
    }
  }
  offset_ = offset + n;
  ++tensors_;
  p->set_data_location(pb::TensorProto::EXTERNAL);
  p->clear_raw_data();
  auto add = [p](const char* key, const std::string& value) {
    auto* e = p->add_external_data();
    e->set_key(key);
    e->set_value(value);
  };
  add("location", location_);
  add("offset", std::to_string(offset));
  add("length", std::to_string(n));
}

Status ExternalDataWriter::Commit() {
  if (!error_.ok()) return error_;
  // A file whose last tensor ends unaligned still ends at its last byte; WriteAt tracked it.
  return file_.Commit();
}

}  // namespace onyx::format
