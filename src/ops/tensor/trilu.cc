// Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two axes, zeroing the rest.
#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

Status TriluCompute(const KernelInfo& info, KernelContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
  if (x->rank() < 2) return InvalidArgument("input 'input' (0) has shape " + ShapeToString(x->shape()) + ", expected rank >= 2");
  int64_t k = 0;
  if (ctx.has_input(1)) {
    ONYX_ASSIGN_OR_RETURN(std::vector<int64_t> kv, IntsInput(ctx, 1, "k"));
    if (kv.size() != 1) return InvalidArgument("input 'k' (1) must hold exactly one value");
    k = kv[0];
  }
  const bool upper = info.GetInt("upper", 1) != 0;
  const int64_t rows = x->dim(x->rank() - 2), cols = x->dim(x->rank() - 1);
  const int64_t matrices = rows * cols == 0 ? 0 : x->size() / (rows * cols);
  Tensor& out = ctx.AllocateOutput(0, x->type(), x->shape());
  return DispatchCopy(x->type(), [&](auto tag) {
    using C = typename decltype(tag)::type;
    const C* in = x->data<C>();
    C* o = out.data<C>();
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t p = (m * rows + i) * cols + j;
          const bool keep = upper ? j - i >= k : j - i <= k;
          o[p] = keep ? in[p] : C{};
        }
      }
    }
    return Status::Ok();
  });
}

}  // namespace

void RegisterTriluOps(KernelRegistry& registry) { registry.AddFn("", "Trilu", 14, kLatestVersion, TriluCompute); }

}  // namespace onyx::ops::movement
