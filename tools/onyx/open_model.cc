#include "open_model.h"

#include "convert/convert_file.h"
#include "format/model_io.h"

namespace onyx::cli {

Result<ir::Model> LoadAnyModel(const std::string& path) {
  if (!convert::IsConvertibleFile(path)) return format::LoadModel(path);
  return convert::ConvertFile(path, 17);
}

Result<std::unique_ptr<Session>> OpenModel(const std::string& path, const SessionOptions& options) {
  // ONNX files through Session::Load, whose errors name the file.
  if (!convert::IsConvertibleFile(path)) return Session::Load(path, options);
  ONYX_ASSIGN_OR_RETURN(ir::Model model, LoadAnyModel(path));
  return Session::Create(std::move(model), options);
}

}  // namespace onyx::cli
