#include "convert/keras/hdf5_file.h"

#include <hdf5.h>

#include <cstring>
#include <new>

#include "core/safe_file.h"

namespace onyx::convert::keras {

namespace {

// Closes an HDF5 handle when leaving scope.
struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Handle() {
    if (id >= 0) close(id);
  }
};

// Turns the library's error printing off, and its loading of filter plugins (shared libraries it would dlopen for a
// filter id a file names): a file must not choose code to run. Keras and h5py use the built-in filters only.
void SilenceHdf5() {
  static const bool done = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5PLset_loading_state(0);
    return true;
  }();
  (void)done;
}

// Drops the padding of a fixed-width string (NUL- or space-padded as its type says).
std::string Unpad(const char* s, size_t width, bool space_padded) {
  size_t n = strnlen(s, width);
  if (space_padded) {
    while (n > 0 && s[n - 1] == ' ') --n;
  }
  return std::string(s, n);
}

// The strings of an attribute in any form Keras 1/2, tf.keras and h5py wrote them: fixed-length strings (NUL- or
// space-padded), variable-length strings, byte arrays (8-bit integers or opaque np.void, one string per element of
// their last dimension), scalars or arrays of each, and empty lists, which h5py stores as empty float64 arrays
// (Keras 2's weight_names of a layer without weights).
Result<std::vector<std::string>> ReadStrings(hid_t attr) {
  Handle type{H5Aget_type(attr), H5Tclose};
  Handle space{H5Aget_space(attr), H5Sclose};
  if (type.id < 0 || space.id < 0) return InvalidArgument("attribute cannot be inspected");
  const H5T_class_t cls = H5Tget_class(type.id);
  const hssize_t count = H5Sget_simple_extent_npoints(space.id);
  if (count < 0 || count > (1 << 24)) return InvalidArgument("attribute has an invalid size");
  std::vector<std::string> out;
  if (count == 0) return out;  // empty list (any element type), or a null dataspace
  const size_t width = H5Tget_size(type.id);
  if (width == 0 || width > (1u << 26) || static_cast<size_t>(count) > (size_t{1} << 28) / width) {
    return InvalidArgument("attribute has an invalid width");
  }
  if (cls == H5T_STRING && H5Tis_variable_str(type.id) > 0) {
    Handle mem{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(mem.id, H5T_VARIABLE);
    H5Tset_cset(mem.id, H5Tget_cset(type.id));
    std::vector<char*> ptrs(static_cast<size_t>(count), nullptr);
    if (H5Aread(attr, mem.id, ptrs.data()) < 0) return InvalidArgument("cannot read a string attribute");
    for (char* p : ptrs) out.emplace_back(p ? p : "");
    H5Dvlen_reclaim(mem.id, space.id, H5P_DEFAULT, ptrs.data());
    return out;
  }
  if (cls == H5T_STRING) {
    const bool space_padded = H5Tget_strpad(type.id) == H5T_STR_SPACEPAD;
    std::vector<char> buf(width * static_cast<size_t>(count) + 1, '\0');
    if (H5Aread(attr, type.id, buf.data()) < 0) return InvalidArgument("cannot read a string attribute");
    for (hssize_t i = 0; i < count; ++i) {
      out.push_back(Unpad(buf.data() + static_cast<size_t>(i) * width, width, space_padded));
    }
    return out;
  }
  if (cls == H5T_OPAQUE || (cls == H5T_INTEGER && width == 1)) {
    // Byte arrays: an opaque element is one string; 8-bit integers are the bytes of one string per row (a scalar or
    // 1-D array is one string; [n, w] is n strings).
    std::vector<char> buf(width * static_cast<size_t>(count) + 1, '\0');
    if (H5Aread(attr, type.id, buf.data()) < 0) return InvalidArgument("cannot read a byte-array attribute");
    size_t item = width;
    if (cls == H5T_INTEGER) {
      const int rank = H5Sget_simple_extent_ndims(space.id);
      hsize_t dims[H5S_MAX_RANK] = {};
      if (rank < 0 || H5Sget_simple_extent_dims(space.id, dims, nullptr) < 0) {
        return InvalidArgument("cannot read a byte-array attribute's shape");
      }
      item = rank == 0 ? 1 : static_cast<size_t>(dims[rank - 1]);
      if (rank <= 1) item = static_cast<size_t>(count);
    }
    for (size_t at = 0; at + item <= static_cast<size_t>(count) * width; at += item) {
      out.push_back(Unpad(buf.data() + at, item, false));
    }
    return out;
  }
  return InvalidArgument("attribute is not a string (HDF5 class " + std::to_string(static_cast<int>(cls)) + ", " +
                         std::to_string(count) + " elements)");
}

// HDF5 lets a dataset keep its data in other files (external storage: raw bytes of any file by name; virtual
// datasets: datasets of other HDF5 files): a hostile .h5 would have onyx read any file it can and copy it into the
// converted model. Only data stored in the file itself is read.
Status CheckDatasetInFile(hid_t ds, const std::string& where) {
  Handle dcpl{H5Dget_create_plist(ds), H5Pclose};
  if (dcpl.id < 0) return InvalidArgument(where + ": cannot inspect its storage");
  const H5D_layout_t layout = H5Pget_layout(dcpl.id);
  if (layout == H5D_VIRTUAL) {
    return Unsupported(where + " is a virtual dataset (its data lives in other files, which onyx does not read)");
  }
  if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED) {
    return InvalidArgument(where + ": unknown storage layout");
  }
  if (H5Pget_external_count(dcpl.id) != 0) {
    return Unsupported(where + " keeps its data in external files, which onyx does not read");
  }
  return Status::Ok();
}

// A dataset's dims are file contents (up to 2^64 elements each): before allocating, its size must be a valid shape,
// within the largest file onyx reads, and backed by the bytes the file stores for it. Unfiltered data is stored
// whole; filtered (compressed) data cannot inflate by more than deflate's maximum ratio (1032:1, the most of any
// HDF5 filter Keras or h5py write); an unwritten dataset (storage 0) would be read as fill values: refused.
Status CheckDatasetSize(hid_t ds, hid_t file_type, const Shape& shape, size_t memory_element_bytes,
                        const std::string& where) {
  auto n = CheckedNumElements(shape);
  if (!n.ok()) return n.status().WithContext(where);
  if (*n == 0) return Status::Ok();
  const uint64_t elements = static_cast<uint64_t>(*n);
  const uint64_t memory_bytes = elements * memory_element_bytes;  // < 2^56: CheckedNumElements caps at 2^52
  if (memory_bytes > MaxReadFileBytes()) {
    return InvalidArgument(where + ": " + ShapeToString(shape) + " needs " + std::to_string(memory_bytes) +
                           " bytes, more than the limit of " + std::to_string(MaxReadFileBytes()) +
                           " (raise it with ONYX_MAX_FILE_BYTES)");
  }
  const size_t file_element_bytes = H5Tget_size(file_type);
  const uint64_t stored = H5Dget_storage_size(ds);
  Handle dcpl{H5Dget_create_plist(ds), H5Pclose};
  const int filters = dcpl.id >= 0 ? H5Pget_nfilters(dcpl.id) : 0;
  if (file_element_bytes == 0 || file_element_bytes > 16) return InvalidArgument(where + ": invalid element size");
  const uint64_t file_bytes = elements * file_element_bytes;
  const uint64_t max_ratio = filters > 0 ? 1032 : 1;
  if (stored == 0 || file_bytes / max_ratio > stored) {
    return InvalidArgument(where + ": " + ShapeToString(shape) + " claims " + std::to_string(file_bytes) +
                           " bytes but the file stores " + std::to_string(stored) + " for it (corrupt file?)");
  }
  return Status::Ok();
}

}  // namespace

Hdf5File::~Hdf5File() {
  if (file_ >= 0) H5Fclose(file_);
}

Result<std::unique_ptr<Hdf5File>> Hdf5File::Open(const std::string& path) {
  SilenceHdf5();
  if (H5Fis_hdf5(path.c_str()) <= 0) return InvalidArgument(path + ": not an HDF5 file");
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return IoError(path + ": cannot open the HDF5 file");
  return std::unique_ptr<Hdf5File>(new Hdf5File(f, path, {}));
}

Result<std::unique_ptr<Hdf5File>> Hdf5File::OpenImage(std::string bytes, const std::string& label) {
  SilenceHdf5();
  if (bytes.size() < 8 || std::memcmp(bytes.data(), "\x89HDF\r\n\x1a\n", 8) != 0) {
    return InvalidArgument(label + ": not an HDF5 file");
  }
  Handle fapl{H5Pcreate(H5P_FILE_ACCESS), H5Pclose};
  if (H5Pset_fapl_core(fapl.id, 1 << 16, 0) < 0 || H5Pset_file_image(fapl.id, bytes.data(), bytes.size()) < 0) {
    return Internal(label + ": cannot set up an in-memory HDF5 file");
  }
  hid_t f = H5Fopen(label.c_str(), H5F_ACC_RDONLY, fapl.id);
  if (f < 0) return InvalidArgument(label + ": cannot open the HDF5 image (corrupt?)");
  return std::unique_ptr<Hdf5File>(new Hdf5File(f, label, std::move(bytes)));
}

namespace {

// Whether `path`'s last link exists and is a hard link. An external link (to an object of another HDF5 file, named
// by the file) counts as absent, and so does a soft link (a path resolved later, which may cross an external link):
// nothing below ever opens another file. Keras and h5py write hard links only.
bool HardLinkExists(hid_t file, const std::string& path) {
  if (H5Lexists(file, path.c_str(), H5P_DEFAULT) <= 0) return false;
  H5L_info_t info;
  if (H5Lget_info(file, path.c_str(), &info, H5P_DEFAULT) < 0) return false;
  return info.type == H5L_TYPE_HARD;
}

}  // namespace

bool Hdf5File::Exists(const std::string& path) const {
  if (path == "/" || path.empty()) return true;
  // Check every prefix: H5Lexists fails on a missing intermediate group.
  size_t pos = 0;
  while ((pos = path.find('/', pos + 1)) != std::string::npos) {
    if (!HardLinkExists(file_, path.substr(0, pos))) return false;
  }
  return HardLinkExists(file_, path);
}

bool Hdf5File::IsGroup(const std::string& path) const {
  if (!Exists(path)) return false;
  H5O_info_t info;
  if (H5Oget_info_by_name(file_, path.c_str(), &info, H5P_DEFAULT) < 0) return false;
  return info.type == H5O_TYPE_GROUP;
}

Result<std::vector<std::string>> Hdf5File::Children(const std::string& group) const {
  if (!IsGroup(group)) return NotFound(label_ + ": no group '" + group + "'");
  Handle g{H5Gopen2(file_, group.c_str(), H5P_DEFAULT), H5Gclose};
  if (g.id < 0) return InvalidArgument(label_ + ": cannot open group '" + group + "'");
  std::vector<std::string> names;
  auto cb = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  hsize_t idx = 0;
  if (H5Literate(g.id, H5_INDEX_NAME, H5_ITER_INC, &idx, cb, &names) < 0) {
    return InvalidArgument(label_ + ": cannot list group '" + group + "'");
  }
  return names;
}

Result<std::optional<std::string>> Hdf5File::StringAttribute(const std::string& object, const std::string& name) const {
  ONYX_ASSIGN_OR_RETURN(auto list, StringListAttribute(object, name));
  if (!list) return std::optional<std::string>();
  if (list->size() != 1)
    return InvalidArgument(label_ + ": attribute '" + name + "' of '" + object + "' is not a single string");
  return std::optional<std::string>((*list)[0]);
}

Result<std::optional<std::vector<std::string>>> Hdf5File::StringListAttribute(const std::string& object,
                                                                              const std::string& name) const {
  using Out = std::optional<std::vector<std::string>>;
  if (!Exists(object)) return NotFound(label_ + ": no object '" + object + "'");
  if (H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) <= 0) return Out();
  Handle attr{H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  if (attr.id < 0) return InvalidArgument(label_ + ": cannot open attribute '" + name + "' of '" + object + "'");
  auto strings = ReadStrings(attr.id);
  if (!strings.ok()) return strings.status().WithContext(label_ + ": attribute '" + name + "' of '" + object + "'");
  return Out(std::move(strings).value());
}

Result<Tensor> Hdf5File::ReadDataset(const std::string& path) const {
  const std::string where = label_ + ": dataset '" + path + "'";
  if (!Exists(path) || IsGroup(path)) return NotFound(where + " not found");
  Handle ds{H5Dopen2(file_, path.c_str(), H5P_DEFAULT), H5Dclose};
  if (ds.id < 0) return InvalidArgument(where + ": cannot open");
  Handle space{H5Dget_space(ds.id), H5Sclose};
  Handle type{H5Dget_type(ds.id), H5Tclose};
  const int rank = H5Sget_simple_extent_ndims(space.id);
  if (rank < 0 || rank > 16) return InvalidArgument(where + ": invalid rank");
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space.id, dims.data(), nullptr);
  Shape shape(dims.begin(), dims.end());
  const H5T_class_t cls = H5Tget_class(type.id);
  DataType dt;
  hid_t mem;
  if (cls == H5T_FLOAT) {
    dt = DataType::kFloat;
    mem = H5T_NATIVE_FLOAT;
  } else if (cls == H5T_INTEGER) {
    dt = DataType::kInt64;
    mem = H5T_NATIVE_INT64;
  } else {
    return Unsupported(where + ": element type is neither floating point nor integer");
  }
  ONYX_RETURN_IF_ERROR(CheckDatasetInFile(ds.id, where));
  ONYX_RETURN_IF_ERROR(CheckDatasetSize(ds.id, type.id, shape, DataTypeStorageBytes(dt, 1), where));
  auto create = [&]() -> Result<Tensor> {
    try {
      return Tensor::Create(dt, shape);
    } catch (const std::bad_alloc&) {
      return InvalidArgument(where + ": out of memory for " + ShapeToString(shape));
    }
  };
  ONYX_ASSIGN_OR_RETURN(Tensor t, create());
  if (t.size() > 0 && H5Dread(ds.id, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, t.raw()) < 0) {
    return InvalidArgument(where + ": cannot read (corrupt file?)");
  }
  return t;
}

}  // namespace onyx::convert::keras
