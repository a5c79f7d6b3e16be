// Random input values for `onyx run` and `onyx bench`: floats in [0,1), integers in [0,10), random bools;
// symbolic dims take the value given in `dims` or 1.
#pragma once

#include <map>
#include <random>
#include <string>

#include "core/value.h"
#include "ir/model.h"

namespace onyx::cli {

Value RandomInput(const ir::ValueInfo& in, const std::map<std::string, int64_t>& dims, std::mt19937_64& rng,
                  Status* st);

}  // namespace onyx::cli
