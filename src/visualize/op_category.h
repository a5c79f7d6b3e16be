// Operator categories for colouring the drawing, after Netron's: layers (convolution, matrix products),
// activations, normalizations, pooling, shape and data movement, control flow, constants, everything else.
#pragma once

#include <string_view>

namespace onyx::visualize {

enum class OpCategory { kLayer, kActivation, kNormalization, kPool, kShape, kControl, kConstant, kOther };

// By op_type alone, so that contrib operators (com.microsoft FusedConv, onyx's NchwcConv...) find their family.
OpCategory CategoryOf(std::string_view op_type);

struct CategoryStyle {
  const char* fill;    // light, so that black text stays readable in every format
  const char* border;  // the category's hue at full strength
};
CategoryStyle StyleOf(OpCategory category);

}  // namespace onyx::visualize
