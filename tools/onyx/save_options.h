// The options of every verb that writes a model (convert, infer, quantize): where its tensors go.
#pragma once

#include <string>
#include <vector>

#include "format/model_io.h"

namespace onyx::cli {

// The help lines for the options below.
extern const char* const kSaveOptionsHelp;

enum class OptionParse { kNotMine, kTaken, kUsageError };

// Parses args[i] when it is one of --external-data[=FILE] (a plain file name beside the output; `--external-data
// FILE` too once the verb's positional arguments are all given), --size-threshold BYTES, --no-external-data;
// advances i past a value it takes. Prints the error on kUsageError.
OptionParse ParseSaveOption(const std::vector<std::string>& args, size_t& i, bool positionals_given,
                            format::SaveOptions* options);

}  // namespace onyx::cli
