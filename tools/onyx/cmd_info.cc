// onyx info MODEL: what a model takes, gives and holds.
#include <algorithm>
#include <cstdio>

#include "cli.h"
#include "open_model.h"

namespace onyx::cli {

namespace {

std::string HumanBytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

void PrintValues(const char* title, const std::vector<const ir::ValueInfo*>& values) {
  std::printf("%s (%zu):\n", title, values.size());
  for (const auto* v : values) {
    std::printf("  %-32s %s\n", v->name.c_str(), v->type ? v->type->ToShortString().c_str() : "(no type)");
  }
}

}  // namespace

int InfoMain(const std::vector<std::string>& args) {
  if (WantsHelp(args) || args.size() != 1) {
    std::printf(
        "usage: onyx info MODEL\n\n"
        "Shows a model's producer, IR version and opsets, its inputs and outputs with element types and shapes\n"
        "(symbolic dims by name), a histogram of its operators (subgraphs included), and its parameter count\n"
        "and bytes.\n");
    return WantsHelp(args) ? kExitOk : kExitUsage;
  }
  auto model = LoadAnyModel(args[0]);
  if (!model.ok()) {
    Error(model.status().message());
    return kExitFailure;
  }
  const ir::Model& m = *model;
  std::printf("model: %s\n", args[0].c_str());
  std::printf("  ir_version: %lld\n", static_cast<long long>(m.ir_version));
  if (!m.producer_name.empty()) {
    std::printf("  producer: %s %s\n", m.producer_name.c_str(), m.producer_version.c_str());
  }
  std::printf("  opsets:");
  for (const auto& o : m.opset_import) {
    std::printf(" %s %lld;", std::string(ir::CanonicalDomain(o.domain)).c_str(), static_cast<long long>(o.version));
  }
  std::printf("\n");
  if (!m.graph.name.empty()) std::printf("  graph: %s\n", m.graph.name.c_str());
  PrintValues("inputs", m.graph.RealInputs());
  std::vector<const ir::ValueInfo*> outs;
  for (const auto& o : m.graph.outputs) outs.push_back(&o);
  PrintValues("outputs", outs);
  auto hist = ir::OperatorHistogram(m.graph);
  int64_t total = 0;
  for (const auto& [_, c] : hist) total += c;
  std::printf("operators (%lld nodes, %zu kinds):\n", static_cast<long long>(total), hist.size());
  std::vector<std::pair<int64_t, std::string>> sorted;
  for (const auto& [op, c] : hist) sorted.emplace_back(-c, op);
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [c, op] : sorted) std::printf("  %-28s %lld\n", op.c_str(), static_cast<long long>(-c));
  int64_t params = 0;
  size_t bytes = 0;
  for (const auto& t : m.graph.initializers) {
    params += t.tensor.size();
    bytes += t.tensor.type() == DataType::kString ? 0 : t.tensor.nbytes();
  }
  std::printf("parameters: %lld in %zu initializers, %s\n", static_cast<long long>(params), m.graph.initializers.size(),
              HumanBytes(static_cast<double>(bytes)).c_str());
  if (!m.functions.empty()) std::printf("functions: %zu\n", m.functions.size());
  return kExitOk;
}

}  // namespace onyx::cli
