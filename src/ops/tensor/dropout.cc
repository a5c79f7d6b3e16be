// Dropout. This is an inference runtime: versions before 12 always run in inference mode (identity; the old
// is_test attribute is ignored). From version 12 the optional 'training_mode' input can turn on random dropping.
// With a 'seed' attribute the draws are those of numpy's legacy generator (np.random.seed(seed), then
// np.random.uniform(0, 1, shape)), which is how ONNX's reference and test data draw them.
#include <random>

#include "ops/tensor/tensor_util.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops::movement {
namespace {

class DropoutKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    since_ = info.since_version();
    has_seed_ = info.HasAttribute("seed");
    seed_ = info.GetInt("seed", 0);
    if (since_ < 12) {
      const float ratio = info.GetFloat("ratio", 0.5f);
      if (!(ratio >= 0.0f && ratio <= 1.0f)) return info.Error("attribute 'ratio' must be in [0, 1]");
    }
    return Status::Ok();
  }
  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    const bool want_mask = ctx.num_outputs() > 1;
    double ratio = 0.5;
    bool training = false;
    if (since_ >= 12) {
      if (ctx.has_input(1)) {
        ONYX_ASSIGN_OR_RETURN(const Tensor* r, ctx.TensorInput(1));
        if (r->size() != 1 || !IsFloatingPoint(r->type())) return InvalidArgument("input 'ratio' (1) must be one float");
        ratio = r->DoubleAt(0);
      }
      if (ctx.has_input(2)) {
        ONYX_ASSIGN_OR_RETURN(const Tensor* t, ctx.TensorInput(2));
        if (t->size() != 1 || t->type() != DataType::kBool) return InvalidArgument("input 'training_mode' (2) must be one bool");
        training = t->data<bool>()[0];
      }
      if (training && !(ratio >= 0.0 && ratio <= 1.0)) {
        return InvalidArgument("input 'ratio' (1) is " + std::to_string(ratio) + ", expected a value in [0, 1]");
      }
    }
    if (!training || ratio == 0.0) {
      ctx.SetOutput(0, *x);
      if (want_mask) {
        // The mask is bool from version 10; before that it has the input's type.
        if (since_ >= 10) {
          Tensor& m = ctx.AllocateOutput(1, DataType::kBool, x->shape());
          for (int64_t i = 0; i < x->size(); ++i) m.data<bool>()[i] = true;
        } else {
          ONYX_RETURN_IF_ERROR(Dispatch<NumericTypes>(x->type(), [&](auto tag) {
            using T = typename decltype(tag)::type;
            Tensor& m = ctx.AllocateOutput(1, x->type(), x->shape());
            for (int64_t i = 0; i < x->size(); ++i) m.data<T>()[i] = FromDouble<T>(1.0);
            return Status::Ok();
          }));
        }
      }
      return Status::Ok();
    }
    // std::mt19937 seeds exactly as numpy's init_genrand; a double takes two draws, 27 + 26 bits, as numpy does.
    std::mt19937 rng(has_seed_ ? static_cast<uint32_t>(seed_) : std::random_device{}());
    auto uniform = [&rng] {
      const uint32_t a = rng() >> 5, b = rng() >> 6;
      return (a * 67108864.0 + b) / 9007199254740992.0;
    };
    const double scale = 1.0 / (1.0 - ratio);
    return Dispatch<FloatTypes>(x->type(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      using CT = ComputeType<T>;
      const T* in = x->data<T>();
      Tensor& out = ctx.AllocateOutput(0, x->type(), x->shape());
      bool* mask = want_mask ? ctx.AllocateOutput(1, DataType::kBool, x->shape()).data<bool>() : nullptr;
      for (int64_t i = 0; i < x->size(); ++i) {
        const bool keep = uniform() >= ratio;
        out.data<T>()[i] = keep ? T(static_cast<CT>(in[i]) * static_cast<CT>(scale)) : T(CT{0});
        if (mask) mask[i] = keep;
      }
      return Status::Ok();
    });
  }

 private:
  int since_ = 0;
  bool has_seed_ = false;
  int64_t seed_ = 0;
};

}  // namespace

void RegisterDropoutOps(KernelRegistry& registry) {
  registry.Add("", "Dropout", 1, kLatestVersion, MakeFactory<DropoutKernel>());
}

}  // namespace onyx::ops::movement
