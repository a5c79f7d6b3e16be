#include "ops/op_list.h"
#include "ops/string/string_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {

void RegisterStringOps(KernelRegistry& registry) {
  string_ops::RegisterStringNormalizerOps(registry);
  string_ops::RegisterTfIdfVectorizerOps(registry);
  string_ops::RegisterRegexFullMatchOps(registry);
  string_ops::RegisterStringConcatSplitOps(registry);
}

}  // namespace onyx::ops
