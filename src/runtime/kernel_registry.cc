#include "runtime/kernel_registry.h"

namespace onyx {

// KernelRegistry::Global() is defined by the ops layer (src/ops/builtin_kernels.cc): the runtime only knows the
// registry, never the kernels in it.

void KernelRegistry::Add(std::string_view domain, std::string_view op_type, int first_version, int last_version,
                         KernelFactory factory) {
  entries_[{std::string(ir::CanonicalDomain(domain)), std::string(op_type)}].push_back(
      Entry{first_version, last_version, std::move(factory)});
}

void KernelRegistry::AddFn(std::string_view domain, std::string_view op_type, int first_version, int last_version,
                           ComputeFn fn) {
  class FnKernel : public OpKernel {
   public:
    FnKernel(const KernelInfo& info, ComputeFn fn) : info_(info), fn_(std::move(fn)) {}
    Status Compute(KernelContext& ctx) override { return fn_(info_, ctx); }

   private:
    KernelInfo info_;
    ComputeFn fn_;
  };
  Add(domain, op_type, first_version, last_version,
      [fn = std::move(fn)](const KernelInfo& info) -> Result<std::unique_ptr<OpKernel>> {
        return std::unique_ptr<OpKernel>(std::make_unique<FnKernel>(info, fn));
      });
}

const KernelFactory* KernelRegistry::Find(std::string_view domain, std::string_view op_type,
                                          int since_version) const {
  auto it = entries_.find(std::make_pair(std::string(ir::CanonicalDomain(domain)), std::string(op_type)));
  if (it == entries_.end()) return nullptr;
  for (const auto& e : it->second) {
    if (since_version >= e.first_version && since_version <= e.last_version) return &e.factory;
  }
  return nullptr;
}

bool KernelRegistry::HasOperator(std::string_view domain, std::string_view op_type) const {
  return entries_.count(std::make_pair(std::string(ir::CanonicalDomain(domain)), std::string(op_type))) > 0;
}

std::vector<std::pair<std::string, std::string>> KernelRegistry::Operators() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, _] : entries_) out.push_back(key);
  return out;
}

}  // namespace onyx
