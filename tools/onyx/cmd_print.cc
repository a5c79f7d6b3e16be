// onyx print MODEL: the model in ONNX's text syntax.
#include <cstdio>

#include "cli.h"
#include "open_model.h"
#include "text/printer.h"

namespace onyx::cli {

int PrintMain(const std::vector<std::string>& args) {
  if (WantsHelp(args) || args.empty()) {
    std::printf(
        "usage: onyx print MODEL [--full]\n\n"
        "Prints MODEL in the ONNX text syntax (docs/Syntax.md of ONNX). Initializers with more than 16 elements\n"
        "are abbreviated unless --full is given.\n");
    return WantsHelp(args) ? kExitOk : kExitUsage;
  }
  bool full = false;
  std::string path;
  for (const auto& a : args) {
    if (a == "--full") {
      full = true;
    } else if (!a.empty() && a[0] == '-') {
      Error("unknown option '" + a + "'");
      return kExitUsage;
    } else {
      path = a;
    }
  }
  auto model = LoadAnyModel(path);
  if (!model.ok()) {
    Error(model.status().message());
    return kExitFailure;
  }
  text::PrintOptions options;
  if (!full) options.max_elements = 16;
  std::fputs(text::PrintModel(*model, options).c_str(), stdout);
  return kExitOk;
}

}  // namespace onyx::cli
