// The Keras readers' resource limits: how deep a config may nest (JSON nesting, models inside models) before the
// recursive walks over it could overflow the stack, and how large a .keras archive's member may inflate. Each has a
// safe default and an environment override; a breach is a one-line error naming the limit and how to raise it.
// (HDF5 datasets are bounded by ONYX_MAX_FILE_BYTES, core/safe_file.h, and by the bytes the file really holds.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace onyx::convert::keras {

// Deepest nesting of arrays and objects accepted in a config's JSON (ONYX_MAX_JSON_DEPTH, default 1000).
int64_t MaxJsonDepth();
// Deepest nesting of models inside models (ONYX_MAX_MODEL_NESTING, default 64).
int64_t MaxModelNesting();
// Largest size a member of a .keras zip may inflate to (ONYX_MAX_ZIP_ENTRY_BYTES, default 4 GiB).
uint64_t MaxZipEntryBytes();

// Refuses JSON text nested deeper than MaxJsonDepth(), before it is parsed (the parse itself is iterative, but
// copying and walking the result recurse once per level). `where` names the text in the error.
Status CheckJsonDepth(std::string_view text, const std::string& where);
// The error for a model nested `depth` levels deep when that is over MaxModelNesting(); Ok otherwise.
Status CheckModelNesting(int64_t depth, const std::string& where);

}  // namespace onyx::convert::keras
