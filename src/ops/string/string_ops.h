// The per-file registration functions of the String family, called from register.cc.
#pragma once

namespace onyx {
class KernelRegistry;
}

namespace onyx::ops::string_ops {

void RegisterStringNormalizerOps(KernelRegistry& registry);
void RegisterTfIdfVectorizerOps(KernelRegistry& registry);
void RegisterRegexFullMatchOps(KernelRegistry& registry);
void RegisterStringConcatSplitOps(KernelRegistry& registry);

}  // namespace onyx::ops::string_ops
