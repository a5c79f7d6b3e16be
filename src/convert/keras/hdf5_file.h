// A read-only view of an HDF5 file through the HDF5 C library (Debian libhdf5): groups, string attributes and
// numeric datasets, for the Keras .h5 and model.weights.h5 readers. Errors are Status values naming the path;
// the library's own error printing is turned off.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::convert::keras {

class Hdf5File {
 public:
  ~Hdf5File();
  Hdf5File(const Hdf5File&) = delete;
  Hdf5File& operator=(const Hdf5File&) = delete;

  static Result<std::unique_ptr<Hdf5File>> Open(const std::string& path);
  // Opens an HDF5 image held in memory (model.weights.h5 inside a .keras zip); `label` names it in errors.
  static Result<std::unique_ptr<Hdf5File>> OpenImage(std::string bytes, const std::string& label);

  bool Exists(const std::string& path) const;  // a group or dataset at `path` ("/a/b")
  bool IsGroup(const std::string& path) const;
  // Names of a group's members, in name order.
  Result<std::vector<std::string>> Children(const std::string& group) const;
  // A string attribute (fixed or variable length, scalar); nullopt when absent.
  Result<std::optional<std::string>> StringAttribute(const std::string& object, const std::string& name) const;
  // A string-array attribute (Keras stores layer_names / weight_names this way); nullopt when absent.
  Result<std::optional<std::vector<std::string>>> StringListAttribute(const std::string& object,
                                                                      const std::string& name) const;
  // A numeric dataset: floating point as float32, integers as int64.
  Result<Tensor> ReadDataset(const std::string& path) const;

  const std::string& label() const { return label_; }

 private:
  Hdf5File(int64_t file, std::string label, std::string image)
      : file_(file), label_(std::move(label)), image_(std::move(image)) {}
  int64_t file_;  // hid_t
  std::string label_;
  std::string image_;  // the bytes of an in-memory file, kept alive while open
};

}  // namespace onyx::convert::keras
