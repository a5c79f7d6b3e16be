// JSON read from model files (TF.js model.json, Keras configs) may nest arbitrarily deep; the parser copes, but
// copying and walking the result recurse once per level. So the nesting is checked on the text before parsing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/limits.h"
#include "core/status.h"

namespace onyx::convert {

using onyx::EnvLimit;  // core/limits.h

// Deepest nesting of arrays and objects accepted (ONYX_MAX_JSON_DEPTH, default 1000).
int64_t MaxJsonDepth();

// Refuses JSON text nested deeper than MaxJsonDepth(), before it is parsed; `where` names the text in the error.
Status CheckJsonDepth(std::string_view text, const std::string& where);

}  // namespace onyx::convert
