#include "convert/convert_file.h"

#include <algorithm>
#include <filesystem>
#include <new>
#include <stdexcept>

#include "convert/keras/converter.h"
#include "convert/tf/converter.h"
#include "convert/tf/op_context.h"
#include "convert/tf/saved_model.h"
#include "convert/tflite/converter.h"
#include "convert/tflite/op_context.h"
#include "convert/tflite/tflite_model.h"

namespace onyx::convert {

std::string_view SourceKindName(SourceKind kind) {
  switch (kind) {
    case SourceKind::kKeras:
      return "Keras";
    case SourceKind::kTfjsGraph:
      return "TF.js graph-model";
    case SourceKind::kTfFrozenGraph:
      return "frozen TensorFlow graph";
    case SourceKind::kTflite:
      return "TensorFlow Lite";
    case SourceKind::kSavedModel:
      return "TensorFlow SavedModel";
  }
  return "?";
}

namespace {

bool IsDirectory(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

}  // namespace

bool IsConvertibleFile(const std::string& path) {
  if (IsDirectory(path)) return true;
  for (const char* ext : {".tflite", ".pb", ".json", ".keras", ".h5", ".hdf5"}) {
    if (path.ends_with(ext)) return true;
  }
  return false;
}

SourceKind DetectSource(const std::string& path) {
  if (IsDirectory(path)) return SourceKind::kSavedModel;
  if (path.ends_with(".tflite")) return SourceKind::kTflite;
  if (path.ends_with(".pb")) return SourceKind::kTfFrozenGraph;
  if (tf::IsTfjsGraphModel(path)) return SourceKind::kTfjsGraph;
  return SourceKind::kKeras;
}

namespace {

Result<ir::Model> ConvertBySource(const std::string& path, int64_t opset) {
  switch (DetectSource(path)) {
    case SourceKind::kTflite:
      return tflite::ConvertTfliteFile(path, opset);
    case SourceKind::kTfFrozenGraph:
      return tf::ConvertTfFrozenGraph(path, {opset});
    case SourceKind::kTfjsGraph:
      return tf::ConvertTfjsGraphModel(path, {opset});
    case SourceKind::kSavedModel: {
      tf::SavedModelOptions options;
      options.opset = opset;
      return tf::ConvertSavedModel(path, options);
    }
    case SourceKind::kKeras: {
      keras::ConvertOptions options;
      options.opset = opset;
      return keras::ConvertKerasFile(path, options);
    }
  }
  return Internal("unknown source kind");
}

}  // namespace

Result<ir::Model> ConvertFile(const std::string& path, int64_t opset) {
  // The readers check the sizes a file claims before allocating; this is the net under them, so that a size one
  // of them missed is an error and not an abort (every caller: the CLI, Python, the C API, a serving repository).
  try {
    return ConvertBySource(path, opset);
  } catch (const std::bad_alloc&) {
    return InvalidArgument("converting '" + path +
                           "' needs more memory than there is (a size in the file is too large)");
  } catch (const std::length_error&) {
    return InvalidArgument("converting '" + path +
                           "' asks for a container larger than possible (a size in the file is too large)");
  }
}

std::vector<std::string> SupportedTensorflowOperators() {
  std::vector<std::string> ops = {"Const", "Placeholder"};  // handled by the graph walk itself
  for (const auto& [name, fn] : tf::OpTable()) ops.push_back(name);
  std::sort(ops.begin(), ops.end());
  return ops;
}

std::vector<std::string> SupportedTfliteOperators() {
  std::vector<std::string> ops;
  for (const auto& [code, fn] : tflite::OpTable()) {
    if (code != tflite::op::kCustom) ops.push_back(tflite::BuiltinName(code));
  }
  for (const auto& [name, fn] : tflite::CustomOpTable()) ops.push_back("CUSTOM(" + name + ")");
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace onyx::convert
