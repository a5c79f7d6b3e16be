#include "convert/keras/config_util.h"

namespace onyx::convert::keras {

Result<int64_t> GetInt(const nlohmann::json& cfg, const std::string& key, const std::string& where) {
  if (!cfg.is_object() || !cfg.contains(key)) return InvalidArgument(where + ": config lacks '" + key + "'");
  const auto& v = cfg[key];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>()))) {
    return static_cast<int64_t>(v.get<double>());
  }
  return InvalidArgument(where + ": config '" + key + "' is not an integer");
}

int64_t GetIntOr(const nlohmann::json& cfg, const std::string& key, int64_t fallback) {
  if (!cfg.is_object() || !cfg.contains(key)) return fallback;
  const auto& v = cfg[key];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) return static_cast<int64_t>(v.get<double>());
  return fallback;
}

double GetFloatOr(const nlohmann::json& cfg, const std::string& key, double fallback) {
  if (!cfg.is_object() || !cfg.contains(key) || !cfg[key].is_number()) return fallback;
  return cfg[key].get<double>();
}

bool GetBoolOr(const nlohmann::json& cfg, const std::string& key, bool fallback) {
  if (!cfg.is_object() || !cfg.contains(key) || !cfg[key].is_boolean()) return fallback;
  return cfg[key].get<bool>();
}

std::string GetStringOr(const nlohmann::json& cfg, const std::string& key, const std::string& fallback) {
  if (!cfg.is_object() || !cfg.contains(key) || !cfg[key].is_string()) return fallback;
  return cfg[key].get<std::string>();
}

bool HasNonNull(const nlohmann::json& cfg, const std::string& key) {
  return cfg.is_object() && cfg.contains(key) && !cfg[key].is_null();
}

Result<std::vector<int64_t>> GetInts(const nlohmann::json& cfg, const std::string& key, size_t n,
                                     const std::vector<int64_t>& fallback, const std::string& where) {
  if (!HasNonNull(cfg, key)) return fallback;
  const auto& v = cfg[key];
  if (v.is_number_integer()) return std::vector<int64_t>(n, v.get<int64_t>());
  if (!v.is_array()) return InvalidArgument(where + ": config '" + key + "' is neither an integer nor a list");
  std::vector<int64_t> out;
  for (const auto& e : v) {
    if (!e.is_number_integer()) return InvalidArgument(where + ": config '" + key + "' has a non-integer entry");
    out.push_back(e.get<int64_t>());
  }
  if (out.size() == 1 && n > 1) out.assign(n, out[0]);
  if (out.size() != n) {
    return InvalidArgument(where + ": config '" + key + "' has " + std::to_string(out.size()) + " entries, expected " +
                           std::to_string(n));
  }
  return out;
}

Result<std::vector<int64_t>> GetIntList(const nlohmann::json& cfg, const std::string& key, const std::string& where) {
  if (!HasNonNull(cfg, key) || !cfg[key].is_array())
    return InvalidArgument(where + ": config lacks a list '" + key + "'");
  std::vector<int64_t> out;
  for (const auto& e : cfg[key]) {
    if (e.is_null()) {
      out.push_back(-1);
    } else if (e.is_number_integer()) {
      out.push_back(e.get<int64_t>());
    } else {
      return InvalidArgument(where + ": config '" + key + "' has a non-integer entry");
    }
  }
  return out;
}

}  // namespace onyx::convert::keras
