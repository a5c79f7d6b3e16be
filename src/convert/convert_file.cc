#include "convert/convert_file.h"

#include "convert/keras/converter.h"
#include "convert/tf/converter.h"
#include "convert/tflite/converter.h"

namespace onyx::convert {

std::string_view SourceKindName(SourceKind kind) {
  switch (kind) {
    case SourceKind::kKeras: return "Keras";
    case SourceKind::kTfjsGraph: return "TF.js graph-model";
    case SourceKind::kTfFrozenGraph: return "frozen TensorFlow graph";
    case SourceKind::kTflite: return "TensorFlow Lite";
  }
  return "?";
}

bool IsConvertibleFile(const std::string& path) {
  for (const char* ext : {".tflite", ".pb", ".json", ".keras", ".h5", ".hdf5"}) {
    if (path.ends_with(ext)) return true;
  }
  return false;
}

SourceKind DetectSource(const std::string& path) {
  if (path.ends_with(".tflite")) return SourceKind::kTflite;
  if (path.ends_with(".pb")) return SourceKind::kTfFrozenGraph;
  if (tf::IsTfjsGraphModel(path)) return SourceKind::kTfjsGraph;
  return SourceKind::kKeras;
}

Result<ir::Model> ConvertFile(const std::string& path, int64_t opset) {
  switch (DetectSource(path)) {
    case SourceKind::kTflite: return tflite::ConvertTfliteFile(path, opset);
    case SourceKind::kTfFrozenGraph: return tf::ConvertTfFrozenGraph(path, {opset});
    case SourceKind::kTfjsGraph: return tf::ConvertTfjsGraphModel(path, {opset});
    case SourceKind::kKeras: {
      keras::ConvertOptions options;
      options.opset = opset;
      return keras::ConvertKerasFile(path, options);
    }
  }
  return Internal("unknown source kind");
}

}  // namespace onyx::convert
