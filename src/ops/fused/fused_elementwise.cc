// FusedElementwise (ir/fused_elementwise.h): a chain of elementwise steps run in one pass by
// kernels::ElementwiseProgram (machine code made for the chain at creation where the CPU has AVX2), in place over its
// input where this node is the input's last reader.
#include "ir/fused_elementwise.h"

#include <optional>
#include <string>
#include <vector>

#include "ir/model.h"
#include "kernels/elementwise_program.h"
#include "ops/common/parallel.h"
#include "ops/fused/fused_ops.h"
#include "runtime/kernel_registry.h"

namespace onyx::ops {
namespace {

using Step = kernels::ElementwiseStep;

Result<Step::Op> ParseOp(const std::string& name) {
  static const std::pair<const char*, Step::Op> kOps[] = {
      {"Add", Step::Op::kAdd},
      {"Sub", Step::Op::kSub},
      {"Mul", Step::Op::kMul},
      {"Div", Step::Op::kDiv},
      {"ClampBelow", Step::Op::kClampBelow},
      {"ClampAbove", Step::Op::kClampAbove},
      {"ReplaceNaN", Step::Op::kReplaceNaN},
      {"RoundEven", Step::Op::kRoundEven},
      {"Sigmoid", Step::Op::kSigmoid},
      {"Tanh", Step::Op::kTanh},
  };
  for (const auto& [text, op] : kOps) {
    if (name == text) return op;
  }
  return InvalidArgument("unknown step '" + name + "'");
}

class FusedElementwiseKernel : public OpKernel {
 public:
  Status Init(const KernelInfo& info) override {
    const std::vector<std::string> ops = info.GetStrings("steps");
    const std::vector<int64_t> operands = info.GetInts("operands");
    const std::vector<float> constants = info.GetFloats("constants");
    rank_ = info.GetInt("rank", 0);
    std::vector<Step> steps;
    if (ops.empty() || ops.size() > static_cast<size_t>(kernels::kMaxElementwiseSteps)) {
      return info.Error("attribute 'steps' has " + std::to_string(ops.size()) + " steps, expected 1 to " +
                        std::to_string(kernels::kMaxElementwiseSteps));
    }
    if (operands.size() != 2 * ops.size()) {
      return info.Error("attribute 'operands' has " + std::to_string(operands.size()) + " values for " +
                        std::to_string(ops.size()) + " steps (expected two per step)");
    }
    if (rank_ < 0 || rank_ > 64) return info.Error("attribute 'rank' is " + std::to_string(rank_));
    for (size_t s = 0; s < ops.size(); ++s) {
      Step step;
      auto op = ParseOp(ops[s]);
      if (!op.ok()) return info.Error("step " + std::to_string(s) + ": " + op.status().message());
      step.op = *op;
      const bool binary = kernels::IsBinary(step.op);
      for (int k = 0; k < (binary ? 2 : 1); ++k) {
        const int64_t r = operands[2 * s + static_cast<size_t>(k)];
        const bool is_constant = r < 0;
        if (is_constant ? -r > static_cast<int64_t>(constants.size()) : r > static_cast<int64_t>(s)) {
          return info.Error("step " + std::to_string(s) + " (" + ops[s] + ") reads operand " + std::to_string(r) +
                            ", which does not exist there");
        }
        (k == 0 ? step.a : step.b) = is_constant ? 0 : static_cast<int>(r);
        (k == 0 ? step.a_is_constant : step.b_is_constant) = is_constant;
        (k == 0 ? step.a_value : step.b_value) = is_constant ? constants[static_cast<size_t>(-r - 1)] : 0.0f;
      }
      if (!binary && step.a_is_constant) {
        return info.Error("step " + std::to_string(s) + " (" + ops[s] + ") reads a constant");
      }
      if (binary && step.a_is_constant && step.b_is_constant) {
        return info.Error("step " + std::to_string(s) + " (" + ops[s] + ") reads two constants");
      }
      steps.push_back(step);
    }
    program_.emplace(std::move(steps));
    return Status::Ok();
  }

  Status Compute(KernelContext& ctx) override {
    ONYX_ASSIGN_OR_RETURN(const Tensor* x, ctx.TensorInput(0));
    if (x->type() != DataType::kFloat) {
      return InvalidArgument("input 0 is " + TensorTypeString(x->type()) + ", expected tensor(float)");
    }
    Tensor* y = nullptr;
    if (x->rank() >= rank_) {
      y = ctx.ReuseInputAsOutput(0, 0);
      if (y == nullptr) y = &ctx.AllocateOutput(0, DataType::kFloat, x->shape());
    } else {
      // X's shape with 1s in front, built in this thread's vector (kept: no heap allocation per run) and copied by
      // AllocateOutput into one the frame recycles.
      static thread_local Shape padded;
      padded.assign(static_cast<size_t>(rank_ - x->rank()), 1);
      padded.insert(padded.end(), x->shape().begin(), x->shape().end());
      y = &ctx.AllocateOutput(0, DataType::kFloat, static_cast<const Shape&>(padded));
    }
    const float* px = x->data<float>();
    float* py = y->data<float>();
    ParallelFor(x->size(), static_cast<int64_t>(program_->steps().size()),
                [&](int64_t lo, int64_t hi) { program_->Run(px + lo, py + lo, hi - lo); });
    return Status::Ok();
  }

 private:
  std::optional<kernels::ElementwiseProgram> program_;
  int64_t rank_ = 0;
};

}  // namespace

void RegisterFusedElementwise(KernelRegistry& registry) {
  registry.Add(ir::kInternalDomain, ir::fused::kFusedElementwise, 1, kLatestVersion,
               MakeFactory<FusedElementwiseKernel>());
}

}  // namespace onyx::ops
