// The channel block of a Nchwc* node (ir/nchwc_ops.h: attribute `block`, 8 or 16) and oneDNN's names for the
// layouts it means.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <string>

#include "ir/nchwc_ops.h"
#include "runtime/kernel.h"

namespace onyx::ops::nchwc {

// The node's `block` attribute (16 when absent), checked.
inline Result<int> ParseBlock(const KernelInfo& info) {
  const int64_t block = info.GetInt(ir::nchwc::kBlockAttr, ir::nchwc::kDefaultBlock);
  if (!ir::nchwc::IsValidBlock(block)) {
    return info.Error("attribute 'block' is " + std::to_string(block) + ", expected 8 or 16");
  }
  return static_cast<int>(block);
}

// The blocked 4-D activation layout with `block` channels per block.
inline dnnl::memory::format_tag BlockedTag(int block) {
  return block == 8 ? dnnl::memory::format_tag::nChw8c : dnnl::memory::format_tag::nChw16c;
}

}  // namespace onyx::ops::nchwc
