// Writing tensors of a model being saved into its external-data file, straight from their memory (a tensor mapped
// from the input model's own external data is streamed from the mapping, never copied into a protobuf string),
// each at an offset aligned for memory mapping. The data file is written under a temporary name and appears with
// Commit(), before the .onnx that refers to it.
#pragma once

#include <cstdint>
#include <string>

#include "core/safe_write.h"
#include "core/status.h"
#include "core/tensor.h"
#include "proto/onyx.pb.h"

namespace onyx::format {

class ExternalDataWriter {
 public:
  // `location` (a plain file name) in `dir`; tensors of at least `threshold` bytes go there, each at a multiple of
  // `alignment` bytes.
  static Result<ExternalDataWriter> Create(const std::string& dir, const std::string& location, int64_t threshold,
                                           int64_t alignment);

  // Whether `t` goes to the file (strings never do: ONNX keeps string tensors inline).
  bool Takes(const Tensor& t) const;
  // Writes `t`'s bytes and fills `p`'s external_data (location, offset, length) and data_location. A write error is
  // kept and returned by Commit(), so that the proto-building functions need no status of their own.
  void Write(const Tensor& t, pb::TensorProto* p);
  // The first write error, or renames the file into place.
  Status Commit();

  int64_t bytes_written() const { return static_cast<int64_t>(offset_); }
  int64_t tensors_written() const { return tensors_; }

 private:
  ExternalDataWriter(AtomicFileWriter file, std::string location, int64_t threshold, int64_t alignment)
      : file_(std::move(file)), location_(std::move(location)), threshold_(threshold), alignment_(alignment) {}
  AtomicFileWriter file_;
  std::string location_;
  int64_t threshold_;
  int64_t alignment_;
  uint64_t offset_ = 0;
  int64_t tensors_ = 0;
  Status error_;
};

}  // namespace onyx::format
