// onyx infer MODEL [-o OUT]: shape and type inference over the whole model.
#include <cstdio>

#include "cli.h"
#include "format/model_io.h"
#include "infer/shape_inference.h"
#include "save_options.h"

namespace onyx::cli {

int InferMain(const std::vector<std::string>& args) {
  std::string model_path, out_path;
  infer::InferOptions options;
  bool bad_usage = false, list_values = false;
  format::SaveOptions save;
  for (size_t i = 0; i < args.size(); ++i) {
    const OptionParse parsed = ParseSaveOption(args, i, !model_path.empty(), &save);
    if (parsed == OptionParse::kUsageError) return kExitUsage;
    if (parsed == OptionParse::kTaken) continue;
    const std::string& a = args[i];
    if ((a == "-o" || a == "--output") && i + 1 < args.size()) {
      out_path = args[++i];
    } else if (a == "--no-strict") {
      options.strict = false;
    } else if (a == "--no-data-prop") {
      options.data_propagation = false;
    } else if (a == "--list") {
      list_values = true;
    } else if (!a.empty() && a[0] != '-' && model_path.empty()) {
      model_path = a;
    } else if (a != "--help" && a != "-h") {
      bad_usage = true;
    }
  }
  if (WantsHelp(args) || bad_usage || model_path.empty()) {
    std::printf(
        "usage: onyx infer MODEL [-o OUT [--external-data[=FILE]] [--size-threshold N]] [--list] [--no-strict]\n"
        "                  [--no-data-prop]\n\n"
        "Infers the element type and shape of every value (symbolic dims such as N or N*2 where sizes depend on\n"
        "the inputs; small integer tensors computing shapes are followed through Shape/Gather/Concat/...), through\n"
        "If/Loop/Scan bodies, model-local functions, sequences and optionals, and writes them as value_info and\n"
        "graph output types to OUT.\n"
        "  -o OUT          write the model with the inferred types\n"
        "  --list          print every value's inferred type\n"
        "  --no-strict     report conflicts with declared types and inference errors as warnings (the declared\n"
        "                  type is kept) instead of failing\n"
        "  --no-data-prop  do not follow the values of shape computations\n"
        "%s",
        kSaveOptionsHelp);
    return WantsHelp(args) ? kExitOk : kExitUsage;
  }
  auto model = format::LoadModel(model_path);
  if (!model.ok()) {
    Error(model.status().message());
    return kExitFailure;
  }
  std::vector<std::string> diagnostics;
  options.diagnostics = &diagnostics;
  Status st = infer::InferShapes(*model, options);
  for (const auto& d : diagnostics) std::fprintf(stderr, "onyx: warning: %s: %s\n", model_path.c_str(), d.c_str());
  if (!st.ok()) {
    Error(model_path + ": " + st.message());
    return kExitFailure;
  }
  if (list_values) {
    for (const auto& vi : model->graph.value_info) {
      std::printf("%s: %s\n", vi.name.c_str(), vi.type ? vi.type->ToShortString().c_str() : "?");
    }
    for (const auto& vi : model->graph.outputs) {
      std::printf("%s (output): %s\n", vi.name.c_str(), vi.type ? vi.type->ToShortString().c_str() : "?");
    }
  }
  if (!out_path.empty()) {
    Status saved = format::SaveModel(*model, out_path, save);
    if (!saved.ok()) {
      Error(saved.message());
      return kExitFailure;
    }
  }
  if (!list_values && out_path.empty()) {
    size_t known = 0;
    for (const auto& vi : model->graph.value_info) known += vi.type.has_value() ? 1 : 0;
    std::printf("%s: %zu values typed (%zu nodes)\n", model_path.c_str(), known, model->graph.nodes.size());
  }
  return kExitOk;
}

}  // namespace onyx::cli
