#include "open_model.h"

#include "convert/convert_file.h"
#include "format/model_io.h"

namespace onyx::cli {

bool IsFrameworkModel(const std::string& path) {
  for (const char* ext : {".tflite", ".pb", ".json", ".keras", ".h5", ".hdf5"}) {
    if (path.ends_with(ext)) return true;
  }
  return false;
}

Result<ir::Model> LoadAnyModel(const std::string& path) {
  if (!IsFrameworkModel(path)) return format::LoadModel(path);
  return convert::ConvertFile(path, 17);
}

Result<std::unique_ptr<Session>> OpenModel(const std::string& path, const SessionOptions& options) {
  if (!IsFrameworkModel(path)) return Session::Load(path, options);
  ONYX_ASSIGN_OR_RETURN(ir::Model model, convert::ConvertFile(path, 17));
  return Session::Create(std::move(model), options);
}

}  // namespace onyx::cli
