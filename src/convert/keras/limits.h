// The Keras readers' resource limits: how deep a config may nest (JSON nesting, models inside models) before the
// recursive walks over it could overflow the stack, and how large a .keras archive's member may inflate. Each has a
// safe default and an environment override; a breach is a one-line error naming the limit and how to raise it.
// (HDF5 datasets are bounded by ONYX_MAX_FILE_BYTES, core/safe_file.h, and by the bytes the file really holds.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "convert/common/json_limits.h"  // CheckJsonDepth, MaxJsonDepth (shared with the TF converter)
#include "core/status.h"

namespace onyx::convert::keras {

using convert::CheckJsonDepth;
using convert::EnvLimit;
using convert::MaxJsonDepth;

// Deepest nesting of models inside models (ONYX_MAX_MODEL_NESTING, default 64).
int64_t MaxModelNesting();
// Largest size a member of a .keras zip may inflate to (ONYX_MAX_ZIP_ENTRY_BYTES, default 4 GiB).
uint64_t MaxZipEntryBytes();

// The error for a model nested `depth` levels deep when that is over MaxModelNesting(); Ok otherwise.
Status CheckModelNesting(int64_t depth, const std::string& where);

}  // namespace onyx::convert::keras
