#include "serve/model_config.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace onyx::serve {
namespace {

using nlohmann::json;

Result<int64_t> NonNegative(const json& j, const std::string& field, int64_t max) {
  if (!j.is_number_integer() || j.get<int64_t>() < 0 || j.get<int64_t>() > max) {
    return InvalidArgument("'" + field + "' must be an integer from 0 to " + std::to_string(max) + ", got " + j.dump());
  }
  return j.get<int64_t>();
}

Result<std::map<std::string, std::string>> NameMap(const json& j, const std::string& field) {
  if (!j.is_object()) return InvalidArgument("'" + field + "' must map graph names to served names");
  std::map<std::string, std::string> names;
  std::set<std::string> served;
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string() || v.get<std::string>().empty()) {
      return InvalidArgument("'" + field + "': the served name of '" + k + "' must be a non-empty string");
    }
    if (!served.insert(v.get<std::string>()).second) {
      return InvalidArgument("'" + field + "': two names are served as '" + v.get<std::string>() + "'");
    }
    names[k] = v.get<std::string>();
  }
  return names;
}

Status ParsePolicy(const json& j, ModelConfig* config) {
  if (!j.is_object() || j.size() != 1) {
    return InvalidArgument(
        "'version_policy' must be one of {\"latest\": {\"num_versions\": N}}, {\"all\": {}}, "
        "{\"specific\": {\"versions\": [...]}}");
  }
  const auto& [kind, body] = *j.items().begin();
  if (kind == "all") {
    config->policy = ModelConfig::Policy::kAll;
  } else if (kind == "latest") {
    config->policy = ModelConfig::Policy::kLatest;
    auto n = body.find("num_versions");
    if (!body.is_object() || n == body.end()) return InvalidArgument("'version_policy.latest' needs 'num_versions'");
    ONYX_ASSIGN_OR_RETURN(config->latest_count, NonNegative(*n, "num_versions", 1 << 20));
    if (config->latest_count == 0) return InvalidArgument("'num_versions' must be at least 1");
  } else if (kind == "specific") {
    config->policy = ModelConfig::Policy::kSpecific;
    auto v = body.find("versions");
    if (!body.is_object() || v == body.end() || !v->is_array() || v->empty()) {
      return InvalidArgument("'version_policy.specific' needs a non-empty 'versions' array");
    }
    for (const auto& x : *v) {
      ONYX_ASSIGN_OR_RETURN(int64_t version, NonNegative(x, "versions", INT64_MAX));
      config->specific_versions.push_back(version);
    }
  } else {
    return InvalidArgument("unknown version policy '" + kind + "' (latest, all or specific)");
  }
  return Status::Ok();
}

}  // namespace

Result<ModelConfig> ParseModelConfig(std::string_view text, const std::string& where) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgument(where + ": not a JSON object");
  ModelConfig config;
  auto fail = [&](const Status& st) { return st.WithContext(where); };
  for (const auto& [key, value] : j.items()) {
    Status st = Status::Ok();
    if (key == "version_policy") {
      st = ParsePolicy(value, &config);
    } else if (key == "max_batch_size") {
      auto n = NonNegative(value, key, 1 << 16);
      if (n.ok()) config.max_batch_size = *n;
      st = n.status();
    } else if (key == "max_queue_delay_us") {
      auto n = NonNegative(value, key, 10'000'000);
      if (n.ok()) config.max_queue_delay_us = *n;
      st = n.status();
    } else if (key == "threads") {
      auto n = NonNegative(value, key, 4096);
      if (n.ok()) config.threads = static_cast<int>(*n);
      st = n.status();
    } else if (key == "optimization_level") {
      auto level = value.is_string() ? optimizer::ParseOptLevel(value.get<std::string>())
                                     : Result<optimizer::OptLevel>(InvalidArgument(
                                           "'optimization_level' must be disabled, basic, extended or all"));
      if (level.ok()) config.optimization_level = *level;
      st = level.status();
    } else if (key == "inputs" || key == "outputs") {
      auto names = NameMap(value, key);
      if (names.ok()) (key == "inputs" ? config.input_names : config.output_names) = std::move(names).value();
      st = names.status();
    } else {
      st = InvalidArgument("unknown field '" + key +
                           "' (version_policy, max_batch_size, max_queue_delay_us, threads, optimization_level, "
                           "inputs, outputs)");
    }
    if (!st.ok()) return fail(st);
  }
  return config;
}

Result<ModelConfig> LoadModelConfig(const std::string& model_dir) {
  const std::filesystem::path path = std::filesystem::path(model_dir) / "config.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return ModelConfig{};
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return ParseModelConfig(text.str(), path.string());
}

std::vector<int64_t> SelectVersions(const ModelConfig& config, std::vector<int64_t> available) {
  std::sort(available.begin(), available.end());
  switch (config.policy) {
    case ModelConfig::Policy::kAll:
      return available;
    case ModelConfig::Policy::kLatest: {
      const size_t n = std::min(available.size(), static_cast<size_t>(config.latest_count));
      return std::vector<int64_t>(available.end() - static_cast<std::ptrdiff_t>(n), available.end());
    }
    case ModelConfig::Policy::kSpecific: {
      std::vector<int64_t> out;
      for (int64_t v : available) {
        if (std::find(config.specific_versions.begin(), config.specific_versions.end(), v) !=
            config.specific_versions.end()) {
          out.push_back(v);
        }
      }
      return out;
    }
  }
  return available;
}

}  // namespace onyx::serve
