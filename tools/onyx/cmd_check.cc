// onyx check [--full] MODEL: validates a model against the ONNX IR rules and the operator schemas.
#include <cstdio>
#include <filesystem>

#include "checker/checker.h"
#include "cli.h"
#include "format/model_io.h"
#include "infer/shape_inference.h"

namespace onyx::cli {

int CheckMain(const std::vector<std::string>& args) {
  checker::CheckOptions options;
  std::vector<std::string> paths;
  for (const auto& a : args) {
    if (a == "--full") {
      options.full = true;
    } else {
      paths.push_back(a);
    }
  }
  if (WantsHelp(args) || paths.size() != 1) {
    std::printf(
        "usage: onyx check [--full] MODEL\n\n"
        "Validates a model as ONNX's checker does: IR version and opset imports, names, single static assignment\n"
        "and topological order, initializers versus inputs, every node against its operator's schema at the\n"
        "imported opset (operator exists, input/output counts, omitted required inputs, attribute names, types\n"
        "and required ones, type constraints of every value with a declared type), model-local functions,\n"
        "subgraph scoping and external data references. Lists every problem found, each with the rule it breaks\n"
        "in brackets; exit status 0 only when the model is valid.\n\n"
        "  --full  also run shape inference over the model and report its findings\n");
    return WantsHelp(args) ? kExitOk : kExitUsage;
  }
  const std::string& path = paths[0];
  format::LoadOptions lo;
  lo.sort_topologically = false;  // the checker reports ordering problems instead of fixing them
  auto model = format::LoadModel(path, lo);
  if (!model.ok()) {
    Error(model.status().message());
    return kExitFailure;
  }
  if (options.full) {
    // --full: shape and type inference over a copy of the model; every conflict or inference error it notes
    // (declared versus inferred types, shapes that cannot broadcast, ...) is a problem.
    checker::SetFullCheckPass([](const ir::Model& m, std::vector<checker::Problem>& problems) {
      ir::Model copy = m;
      std::vector<std::string> diagnostics;
      infer::InferOptions io;
      io.strict = false;
      io.diagnostics = &diagnostics;
      Status st = infer::InferShapes(copy, io);
      if (!st.ok()) diagnostics.push_back(st.message());
      for (auto& d : diagnostics) problems.push_back(checker::Problem{"shape inference", "inference", std::move(d)});
    });
  }
  options.model_dir = std::filesystem::path(path).parent_path().string();
  if (options.model_dir.empty()) options.model_dir = ".";
  auto problems = checker::CheckModel(*model, options);
  for (const auto& p : problems) std::printf("%s: %s\n", path.c_str(), p.ToString().c_str());
  if (problems.empty()) {
    std::printf("%s: valid\n", path.c_str());
    return kExitOk;
  }
  std::printf("%s: %zu problem%s\n", path.c_str(), problems.size(), problems.size() == 1 ? "" : "s");
  return kExitFailure;
}

}  // namespace onyx::cli
