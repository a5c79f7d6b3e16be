// numpy .npy files (format versions 1.0 to 3.0), little-endian, C order; the element types numpy has.
#pragma once

#include <string>

#include "core/status.h"
#include "core/tensor.h"

namespace onyx::format {

Result<Tensor> LoadNpy(const std::string& path);
Result<Tensor> ParseNpy(std::string_view bytes);
Status SaveNpy(const Tensor& tensor, const std::string& path);
Result<std::string> SerializeNpy(const Tensor& tensor);

}  // namespace onyx::format
