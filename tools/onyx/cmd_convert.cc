// onyx convert MODEL -o OUT.onnx: converts a Keras, TensorFlow (TF.js graph-model, frozen GraphDef, SavedModel
// directory) or TFLite model to ONNX, or moves an ONNX model to another opset.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "cli.h"
#include "convert/convert_file.h"
#include "convert/keras/converter.h"
#include "convert/tf/converter.h"
#include "convert/tf/saved_model.h"
#include "convert/tflite/converter.h"
#include "format/model_io.h"
#include "save_options.h"
#include "version/opset_converter.h"

namespace onyx::cli {

namespace {

void Help() {
  std::printf(
      "usage: onyx convert MODEL -o OUT.onnx [--opset N] [--batch N | --dynamic-batch]\n"
      "                    [--inputs-as-nchw NAMES] [--outputs-as-nchw NAMES]\n"
      "       onyx convert SAVED_MODEL_DIR -o OUT.onnx [--signature NAME] [--tag TAG] [--opset N]\n"
      "       onyx convert MODEL.onnx -o OUT.onnx --opset N\n"
      "       onyx convert --list-operators tensorflow|tflite\n\n"
      "An .onnx MODEL is moved to default-domain opset N (up or down), each changed operator adapted; a node that\n"
      "cannot be expressed at N is named with the reason. Otherwise onyx\n"
      "converts a Keras model to ONNX: a Keras 3 .keras archive, a Keras 2 HDF5 .h5 file, or a TF.js layers\n"
      "model (model.json beside its weight shards). Inputs and outputs keep Keras's channels-last layout\n"
      "(NHWC, what the Keras model is fed), unless named in --inputs-as-nchw / --outputs-as-nchw.\n"
      "A TensorFlow graph -- a TF.js graph-model (model.json with \"format\": \"graph-model\") or a frozen GraphDef\n"
      "(.pb) -- is converted operator by operator; its inputs and outputs keep TensorFlow's names (\"input:0\") and\n"
      "layouts (docs/tensorflow.md). A TensorFlow Lite model (.tflite: float, float16 weights, quantized int8/uint8,\n"
      "sparse tensors, WHILE/IF subgraphs) likewise.\n"
      "A TensorFlow SavedModel directory (saved_model.pb, variables/) is converted for one signature: its variables\n"
      "become constants, and the ONNX inputs and outputs are named by the signature's keys.\n\n"
      "options:\n"
      "  -o, --output FILE  the ONNX file to write (and its external data: written under temporary names, then\n"
      "                     renamed)\n"
      "  --opset N          default-domain opset: Keras 13..21 (default 17); .onnx: the target, any known opset\n"
      "  --batch N          fix the batch dimension to N\n"
      "  --dynamic-batch    a symbolic batch dimension 'batch' (the default)\n"
      "  --inputs-as-nchw NAMES   comma-separated graph inputs (rank >= 3) to take channels-first\n"
      "  --outputs-as-nchw NAMES  comma-separated graph outputs (rank >= 3) to give channels-first\n"
      "  --signature NAME   SavedModel: the signature to convert (default serving_default, or the only one)\n"
      "  --tag TAG          SavedModel: the meta graph whose tags include TAG (default serve)\n"
      "%s"
      "  --quiet            print nothing on success\n"
      "  --list-operators tensorflow|tflite   print the operators the converter handles, one per line\n\n"
      "Exit codes: 0 converted, 1 conversion failed, 2 usage error, 3 unsupported input.\n",
      kSaveOptionsHelp);
}

bool ParseInt(const std::string& s, int64_t* out) {
  try {
    size_t pos = 0;
    *out = std::stoll(s, &pos);
    return pos == s.size();
  } catch (...) {
    return false;
  }
}

}  // namespace

int ConvertMain(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    Help();
    return kExitOk;
  }
  if (!args.empty() && args[0] == "--list-operators") {
    const std::string which = args.size() == 2 ? args[1] : "";
    if (which != "tensorflow" && which != "tflite") {
      Error("--list-operators takes tensorflow or tflite");
      return kExitUsage;
    }
    for (const std::string& op :
         which == "tensorflow" ? convert::SupportedTensorflowOperators() : convert::SupportedTfliteOperators()) {
      std::printf("%s\n", op.c_str());
    }
    return kExitOk;
  }
  std::string input, output;
  convert::keras::ConvertOptions options;
  bool quiet = false;
  std::optional<int64_t> opset_given;
  convert::tf::SavedModelOptions saved_model;
  bool saved_model_option = false;
  format::SaveOptions save;
  for (size_t i = 0; i < args.size(); ++i) {
    const OptionParse parsed = ParseSaveOption(args, i, !input.empty(), &save);
    if (parsed == OptionParse::kUsageError) return kExitUsage;
    if (parsed == OptionParse::kTaken) continue;
    const std::string& a = args[i];
    if (a == "--inputs-as-nchw" || a == "--outputs-as-nchw") {
      if (i + 1 >= args.size() || args[i + 1].empty()) {
        Error(a + " needs a comma-separated list of names");
        return kExitUsage;
      }
      auto& list = a == "--inputs-as-nchw" ? options.inputs_as_nchw : options.outputs_as_nchw;
      const std::string& v = args[++i];
      for (size_t start = 0; start <= v.size();) {
        const size_t comma = std::min(v.find(',', start), v.size());
        if (comma > start) list.push_back(v.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (a == "--signature" || a == "--tag") {
      if (i + 1 >= args.size() || args[i + 1].empty()) {
        Error(a + " needs a value");
        return kExitUsage;
      }
      (a == "--tag" ? saved_model.tag : saved_model.signature) = args[++i];
      saved_model.signature_given |= a == "--signature";
      saved_model_option = true;
    } else if (a == "-o" || a == "--output" || a == "--opset" || a == "--batch") {
      if (i + 1 >= args.size()) {
        Error(a + " needs a value");
        return kExitUsage;
      }
      const std::string& v = args[++i];
      if (a == "-o" || a == "--output") {
        output = v;
      } else {
        int64_t n = 0;
        if (!ParseInt(v, &n)) {
          Error(a + " needs an integer, got '" + v + "'");
          return kExitUsage;
        }
        if (a == "--opset") {
          opset_given = n;
          options.opset = n;
        } else {
          if (n <= 0) {
            Error("--batch must be positive, got " + v);
            return kExitUsage;
          }
          options.batch = n;
        }
      }
    } else if (a == "--dynamic-batch") {
      options.batch.reset();
    } else if (a == "--quiet") {
      quiet = true;
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "' (see 'onyx convert --help')");
      return kExitUsage;
    } else if (input.empty()) {
      input = a;
    } else {
      Error("more than one MODEL given");
      return kExitUsage;
    }
  }
  if (input.empty() || output.empty()) {
    Error("usage: onyx convert MODEL -o OUT.onnx (see 'onyx convert --help')");
    return kExitUsage;
  }
  const bool opset_conversion = input.ends_with(".onnx");
  if (opset_conversion && !opset_given) {
    Error("converting an .onnx model needs --opset N");
    return kExitUsage;
  }
  if (!opset_conversion && opset_given && (*opset_given < 13 || *opset_given > 21)) {
    Error("--opset must be within 13..21 when converting from Keras, TensorFlow or TFLite, got " +
          std::to_string(*opset_given));
    return kExitUsage;
  }
  convert::keras::ConvertReport report;
  convert::tf::TfConvertReport tf_report;
  convert::tflite::TfliteConvertReport tflite_report;
  const convert::SourceKind kind = convert::DetectSource(input);
  const bool tflite = !opset_conversion && kind == convert::SourceKind::kTflite;
  const bool tf_frozen = !opset_conversion && kind == convert::SourceKind::kTfFrozenGraph;
  const bool tf_saved = !opset_conversion && kind == convert::SourceKind::kSavedModel;
  const bool tf_graph = tf_frozen || tf_saved || (!opset_conversion && kind == convert::SourceKind::kTfjsGraph);
  if (saved_model_option && !tf_saved) {
    Error("--signature and --tag apply to SavedModel directories only");
    return kExitUsage;
  }
  int64_t from_opset = 0;
  auto model = [&]() -> Result<ir::Model> {
    if (tflite || tf_graph) {
      if (options.batch || !options.inputs_as_nchw.empty() || !options.outputs_as_nchw.empty()) {
        return InvalidArgument("--batch, --inputs-as-nchw and --outputs-as-nchw apply to Keras models only");
      }
      if (tflite) return convert::tflite::ConvertTfliteFile(input, options.opset, &tflite_report);
      if (tf_frozen) return convert::tf::ConvertTfFrozenGraph(input, {options.opset}, &tf_report);
      if (tf_saved) {
        saved_model.opset = options.opset;
        return convert::tf::ConvertSavedModel(input, saved_model, &tf_report);
      }
      return convert::tf::ConvertTfjsGraphModel(input, {options.opset}, &tf_report);
    }
    if (!opset_conversion) return convert::keras::ConvertKerasFile(input, options, &report);
    ONYX_ASSIGN_OR_RETURN(ir::Model loaded, format::LoadModel(input));
    from_opset = loaded.OpsetVersion("ai.onnx").value_or(0);
    return version::ConvertOpset(loaded, *opset_given);
  }();
  if (!model.ok()) {
    Error(model.status().message());
    return model.status().code() == StatusCode::kUnsupported ? kExitUnsupported : kExitFailure;
  }
  // SaveModel writes under temporary names and renames: a failed write never leaves a partial OUT.onnx.
  Status saved = format::SaveModel(*model, output, save);
  if (!saved.ok()) {
    Error(output + ": " + saved.message());
    return kExitFailure;
  }
  if (!quiet && opset_conversion) {
    std::printf("%s -> %s: opset %lld -> %lld, %zu nodes\n", input.c_str(), output.c_str(),
                static_cast<long long>(from_opset), static_cast<long long>(*opset_given), model->graph.nodes.size());
  } else if (!quiet && tflite) {
    std::printf(
        "%s -> %s: %d TFLite operators, %d ONNX nodes, opset %lld; Transpose nodes %d -> %d after layout "
        "optimization\n",
        input.c_str(), output.c_str(), tflite_report.operators, tflite_report.nodes,
        static_cast<long long>(options.opset), tflite_report.transposes_before, tflite_report.transposes_after);
  } else if (!quiet && tf_graph) {
    std::printf(
        "%s -> %s: %d TensorFlow nodes, %d ONNX nodes, opset %lld; Transpose nodes %d -> %d after layout "
        "optimization",
        input.c_str(), output.c_str(), tf_report.tf_nodes, tf_report.nodes, static_cast<long long>(options.opset),
        tf_report.transposes_before, tf_report.transposes_after);
    if (tf_report.dilated_convolutions_folded > 0) {
      std::printf("; %d SpaceToBatchND/BatchToSpaceND pairs folded into dilated convolutions",
                  tf_report.dilated_convolutions_folded);
    }
    std::printf("\n");
  } else if (!quiet) {
    std::printf("%s -> %s: %d layers, %d nodes, opset %lld; Transpose nodes %d -> %d after layout optimization\n",
                input.c_str(), output.c_str(), report.layers, report.nodes, static_cast<long long>(options.opset),
                report.transposes_before, report.transposes_after);
  }
  return kExitOk;
}

}  // namespace onyx::cli
