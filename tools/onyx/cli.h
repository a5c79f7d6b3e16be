// Shared pieces of the `onyx` command-line tool: the verb table and small argument helpers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace onyx::cli {

// Exit codes: 0 success, 1 the work failed (invalid model, failing tests), 2 usage error, 3 unsupported.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitUnsupported = 3;

int InfoMain(const std::vector<std::string>& args);
int CheckMain(const std::vector<std::string>& args);
int RunMain(const std::vector<std::string>& args);
int PrintMain(const std::vector<std::string>& args);
int ConformanceMain(const std::vector<std::string>& args);
int BenchMain(const std::vector<std::string>& args);
int ConvertMain(const std::vector<std::string>& args);
int InferMain(const std::vector<std::string>& args);
int CompareMain(const std::vector<std::string>& args);
int ServeMain(const std::vector<std::string>& args);
int VisualizeMain(const std::vector<std::string>& args);
int BatchMain(const std::vector<std::string>& args);
int QuantizeMain(const std::vector<std::string>& args);
int TuneMain(const std::vector<std::string>& args);

bool WantsHelp(const std::vector<std::string>& args);
// Prints "onyx: <message>" to stderr.
void Error(const std::string& message);

// A numeric option's value: the whole text must be a number in [min, max]. Otherwise prints an error naming the
// option, the value and the range, and returns false (the verb then exits with kExitUsage). No silent 0 for "abc".
bool ParseIntArg(const std::string& option, const std::string& value, int64_t min, int64_t max, int64_t* out);
bool ParseIntArg(const std::string& option, const std::string& value, int min, int max, int* out);
bool ParseFloatArg(const std::string& option, const std::string& value, double min, double max, double* out);
// An on/off option's value ("on" or "off"); otherwise prints an error naming the option and returns false.
bool ParseOnOffArg(const std::string& option, const std::string& value, bool* out);

}  // namespace onyx::cli
