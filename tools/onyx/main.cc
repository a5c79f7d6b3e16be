// onyx: the command-line face of the library.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "onyx_version.h"

namespace {

struct Verb {
  const char* name;
  const char* summary;
  int (*main)(const std::vector<std::string>&);
};

const Verb kVerbs[] = {
    {"info", "show a model's inputs, outputs, opsets, operators and parameters", onyx::cli::InfoMain},
    {"check", "validate a model's structure", onyx::cli::CheckMain},
    {"run", "run a model on inputs from .npy/.pb files or random data", onyx::cli::RunMain},
    {"print", "print a model in the ONNX text syntax", onyx::cli::PrintMain},
    {"convert",
     "convert Keras (.keras, .h5, TF.js layers), TensorFlow (TF.js graph, frozen .pb) or TFLite models to ONNX",
     onyx::cli::ConvertMain},
    {"infer", "infer every value's type and shape (symbolic dims too) and write them into the model",
     onyx::cli::InferMain},
    {"bench", "measure session creation, run latency and peak memory", onyx::cli::BenchMain},
    {"conformance", "run ONNX backend test cases and report PASS/FAIL per case", onyx::cli::ConformanceMain},
    {"compare", "compare two models' outputs (or one model two ways, or against reference data)",
     onyx::cli::CompareMain},
    {"serve", "serve a model over HTTP (KServe v2 / Open Inference Protocol REST)", onyx::cli::ServeMain},
    {"visualize", "draw a model's graph (DOT, SVG, PNG, PDF)", onyx::cli::VisualizeMain},
    {"batch", "run a model over many inputs (folders, .npy/.pb files, images) in batches, resumable",
     onyx::cli::BatchMain},
    {"quantize", "make a quantized model: dynamic, static QDQ (calibrated) or weight-only int4/int8",
     onyx::cli::QuantizeMain},
    {"tune", "time convolution choices on this CPU for a model's shapes and keep the fastest in the tuning cache",
     onyx::cli::TuneMain},
};

void Usage(std::FILE* out) {
  std::fprintf(out, "usage: onyx <command> [options]\n\nonyx reads, checks and runs ONNX models.\n\ncommands:\n");
  for (const auto& v : kVerbs) std::fprintf(out, "  %-12s %s\n", v.name, v.summary);
  std::fprintf(out, "\nRun 'onyx <command> --help' for the options of a command.\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(true);
  if (argc < 2) {
    Usage(stderr);
    return onyx::cli::kExitUsage;
  }
  std::string verb = argv[1];
  if (verb == "--help" || verb == "-h" || verb == "help") {
    Usage(stdout);
    return onyx::cli::kExitOk;
  }
  if (verb == "--version") {
    std::printf("onyx %s\n", ONYX_VERSION_STRING);
    return onyx::cli::kExitOk;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& v : kVerbs) {
    if (verb == v.name) return v.main(args);
  }
  onyx::cli::Error("unknown command '" + verb + "' (see 'onyx --help')");
  return onyx::cli::kExitUsage;
}

namespace onyx::cli {

bool WantsHelp(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

void Error(const std::string& message) {
  // One line, whatever the message quotes: names read from a hostile file may hold newlines or terminal escapes.
  std::string line;
  line.reserve(message.size());
  for (const char ch : message) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      line += escaped;
    } else {
      line += ch;
    }
  }
  std::fprintf(stderr, "onyx: %s\n", line.c_str());
}

bool ParseIntArg(const std::string& option, const std::string& value, int64_t min, int64_t max, int64_t* out) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || end == nullptr || *end != '\0' || errno == ERANGE || v < min || v > max) {
    Error(option + " expects an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got '" +
          value + "'");
    return false;
  }
  *out = v;
  return true;
}

bool ParseIntArg(const std::string& option, const std::string& value, int min, int max, int* out) {
  int64_t v = 0;
  if (!ParseIntArg(option, value, int64_t{min}, int64_t{max}, &v)) return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseOnOffArg(const std::string& option, const std::string& value, bool* out) {
  if (value != "on" && value != "off") {
    Error(option + " expects on or off, got '" + value + "'");
    return false;
  }
  *out = value == "on";
  return true;
}

bool ParseFloatArg(const std::string& option, const std::string& value, double min, double max, double* out) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end == nullptr || *end != '\0' || errno == ERANGE || !(v >= min && v <= max)) {
    Error(option + " expects a number from " + std::to_string(min) + " to " + std::to_string(max) + ", got '" + value +
          "'");
    return false;
  }
  *out = v;
  return true;
}

}  // namespace onyx::cli
