// Typed, exception-free reads of Keras layer configs (JSON). Keras writes tuples as lists and sometimes a
// single number where a tuple is meant (kernel_size: 3); these helpers accept both.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace onyx::convert::keras {

Result<int64_t> GetInt(const nlohmann::json& cfg, const std::string& key, const std::string& where);
int64_t GetIntOr(const nlohmann::json& cfg, const std::string& key, int64_t fallback);
double GetFloatOr(const nlohmann::json& cfg, const std::string& key, double fallback);
bool GetBoolOr(const nlohmann::json& cfg, const std::string& key, bool fallback);
std::string GetStringOr(const nlohmann::json& cfg, const std::string& key, const std::string& fallback);
bool HasNonNull(const nlohmann::json& cfg, const std::string& key);
// An int or a list of n ints (a single int repeats n times); fallback when absent or null.
Result<std::vector<int64_t>> GetInts(const nlohmann::json& cfg, const std::string& key, size_t n,
                                     const std::vector<int64_t>& fallback, const std::string& where);
// A list of ints of any length (null entries -> -1).
Result<std::vector<int64_t>> GetIntList(const nlohmann::json& cfg, const std::string& key, const std::string& where);

}  // namespace onyx::convert::keras
