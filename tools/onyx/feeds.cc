#include "feeds.h"

#include <filesystem>
#include <random>
#include <set>

#include "format/npy.h"
#include "format/tensor_proto.h"
#include "random_inputs.h"
#include "testing/conformance.h"

namespace onyx::cli {

Result<Feeds> BuildFeeds(const ir::Graph& graph, const FeedSources& sources, bool* usage_error) {
  *usage_error = false;
  Feeds feeds;
  std::map<std::string, Value> given;
  if (!sources.dir.empty()) {
    auto loaded = testing::LoadDataSetInputs(graph, sources.dir);
    if (!loaded.ok()) return loaded.status().WithContext(sources.dir);
    for (auto& [name, v] : *loaded) given[name] = std::move(v);
  }
  for (const auto& [name, file] : sources.files) {
    const ir::ValueInfo* decl = nullptr;
    for (const auto& in : graph.inputs) {
      if (in.name == name) decl = &in;
    }
    if (decl == nullptr) {
      *usage_error = true;
      return InvalidArgument("'" + name + "' is not an input of the model");
    }
    Result<Value> v = Value();
    if (std::filesystem::path(file).extension() == ".npy") {
      auto t = format::LoadNpy(file);
      v = t.ok() ? Result<Value>(Value(std::move(t).value())) : Result<Value>(t.status());
    } else {
      v = format::LoadValueFile(file, decl->type ? &*decl->type : nullptr);
    }
    if (!v.ok()) return v.status().WithContext("input '" + name + "'");
    given[name] = std::move(v).value();
  }
  std::mt19937_64 rng(sources.seed);
  for (const auto* in : graph.RealInputs()) {
    auto it = given.find(in->name);
    if (it != given.end()) {
      feeds.values.emplace_back(in->name, std::move(it->second));
      given.erase(it);
      continue;
    }
    if (!sources.dir.empty()) {
      return NotFound(sources.dir + ": no input_N.pb for input '" + in->name + "' (the model has " +
                      std::to_string(graph.RealInputs().size()) + " inputs)");
    }
    Status st;
    Value v = RandomInput(*in, sources.dims, rng, &st);
    if (!st.ok()) return st;
    feeds.values.emplace_back(in->name, std::move(v));
    feeds.random.push_back(in->name);
  }
  // Inputs with a default (an initializer of the same name) may be fed too.
  for (auto& [name, v] : given) feeds.values.emplace_back(name, std::move(v));
  return feeds;
}

}  // namespace onyx::cli
