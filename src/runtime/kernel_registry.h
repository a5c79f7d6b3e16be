// Kernels of every operator, keyed by domain, operator and the range of operator versions they implement.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/kernel.h"

namespace onyx {

constexpr int kLatestVersion = 1 << 20;

class KernelRegistry {
 public:
  // The registry holding every built-in kernel, filled once from the op list in ops/op_list.h. Defined by the ops
  // layer (src/ops/builtin_kernels.cc), so that the runtime does not depend on the kernels it runs.
  static const KernelRegistry& Global();

  // Registers a kernel for the operator versions (since_version values) first..last, inclusive.
  void Add(std::string_view domain, std::string_view op_type, int first_version, int last_version,
           KernelFactory factory);
  // Registers a stateless kernel given as one function.
  void AddFn(std::string_view domain, std::string_view op_type, int first_version, int last_version, ComputeFn fn);

  // The kernel factory for this operator version, or null.
  const KernelFactory* Find(std::string_view domain, std::string_view op_type, int since_version) const;
  bool HasOperator(std::string_view domain, std::string_view op_type) const;
  // Every (domain, op_type) with a kernel.
  std::vector<std::pair<std::string, std::string>> Operators() const;

 private:
  struct Entry {
    int first_version;
    int last_version;
    KernelFactory factory;
  };
  std::map<std::pair<std::string, std::string>, std::vector<Entry>, std::less<>> entries_;
};

}  // namespace onyx
