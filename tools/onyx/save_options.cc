#include "save_options.h"

#include <cstdint>

#include "cli.h"

namespace onyx::cli {

const char* const kSaveOptionsHelp =
    "  --external-data[=FILE]  put tensors of at least --size-threshold bytes in FILE beside the output (default\n"
    "                     OUT.onnx.data), each at a 4 KiB-aligned offset; without it, only a model whose tensors pass\n"
    "                     1.5 GiB gets external data (a protobuf holds at most 2 GiB)\n"
    "  --size-threshold BYTES  smallest tensor put in external data (default 1024)\n"
    "  --no-external-data keep every tensor in the .onnx file (fails when it would pass 2 GiB)\n";

OptionParse ParseSaveOption(const std::vector<std::string>& args, size_t& i, bool positionals_given,
                            format::SaveOptions* options) {
  using Mode = format::SaveOptions::ExternalData;
  const std::string& a = args[i];
  if (a == "--external-data" || a.rfind("--external-data=", 0) == 0) {
    options->external_data = Mode::kAlways;
    if (a.size() > std::string("--external-data").size()) {
      options->external_data_location = a.substr(std::string("--external-data=").size());
    } else if (positionals_given && i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-') {
      options->external_data_location = args[++i];
    }
    if (options->external_data_location.empty() && a != "--external-data") {
      Error("--external-data= needs a file name");
      return OptionParse::kUsageError;
    }
    return OptionParse::kTaken;
  }
  if (a == "--no-external-data") {
    options->external_data = Mode::kNever;
    return OptionParse::kTaken;
  }
  if (a == "--size-threshold") {
    if (i + 1 >= args.size()) {
      Error("--size-threshold needs a value");
      return OptionParse::kUsageError;
    }
    int64_t n = 0;
    if (!ParseIntArg(a, args[++i], 0, INT64_MAX, &n)) return OptionParse::kUsageError;
    options->external_data_threshold = n;
    return OptionParse::kTaken;
  }
  return OptionParse::kNotMine;
}

}  // namespace onyx::cli
