// onyx check MODEL: structural validation, every problem listed.
#include <cstdio>

#include "checker/checker.h"
#include "cli.h"
#include "format/model_io.h"

namespace onyx::cli {

int CheckMain(const std::vector<std::string>& args) {
  if (WantsHelp(args) || args.size() != 1) {
    std::printf(
        "usage: onyx check MODEL\n\n"
        "Validates a model's structure: IR version and opset imports, names and SSA form, that every node's inputs\n"
        "are defined before use (subgraphs see their enclosing scopes), that each operator exists at the imported\n"
        "opset, attributes, and graph outputs. Lists every problem found; exit status 0 only when valid.\n");
    return WantsHelp(args) ? kExitOk : kExitUsage;
  }
  format::LoadOptions lo;
  lo.sort_topologically = false;  // the checker reports ordering problems instead of fixing them
  auto model = format::LoadModel(args[0], lo);
  if (!model.ok()) {
    Error(model.status().message());
    return kExitFailure;
  }
  auto problems = checker::CheckModel(*model);
  for (const auto& p : problems) std::printf("%s: %s\n", args[0].c_str(), p.ToString().c_str());
  if (problems.empty()) {
    std::printf("%s: valid\n", args[0].c_str());
    return kExitOk;
  }
  std::printf("%s: %zu problem%s\n", args[0].c_str(), problems.size(), problems.size() == 1 ? "" : "s");
  return kExitFailure;
}

}  // namespace onyx::cli
