// TensorFlow operators of the recurrent family (see op_context.h): the single-step block cells LSTMBlockCell and
// GRUBlockCell, spelled gate by gate (MatMul, Sigmoid, Tanh) in TF's order and with TF's options, so every output
// TF gives (the gates too) is available. (ONNX's LSTM/GRU order their gates differently and run whole sequences.)
#include "convert/tf/emit.h"
#include "convert/tf/op_context.h"

namespace onyx::convert::tf {
namespace {

Result<std::vector<TfValue>> FloatInputs(OpContext& ctx, size_t n) {
  if (ctx.num_inputs() < n) {
    return InvalidArgument(ctx.node.Where() + ": " + std::to_string(ctx.num_inputs()) + " inputs (expected " +
                           std::to_string(n) + ")");
  }
  std::vector<TfValue> ins;
  for (size_t i = 0; i < n; ++i) {
    ONYX_ASSIGN_OR_RETURN(TfValue v, ctx.Input(i));
    if (v.type != DataType::kFloat) {
      return Unsupported(ctx.node.Where() + ": input " + std::to_string(i) + " of element type " +
                         std::string(DataTypeName(v.type)) + " (float32 expected)");
    }
    ins.push_back(v);
  }
  return ins;
}

// [a, b] @ w + bias, for a [B, I], b [B, H], w [I + H, n], bias [n].
std::string Affine(OpContext& ctx, const std::string& a, const std::string& b, const std::string& w,
                   const std::string& bias, const std::string& tag) {
  const std::string ab = ctx.b.Op1("Concat", {a, b}, ctx.Name(tag + "_inputs"), {ir::IntAttr("axis", 1)});
  return ctx.b.Op1("Add", {ctx.b.Op1("MatMul", {ab, w}, ctx.Name(tag + "_matmul")), bias}, ctx.Name(tag));
}

// LSTMBlockCell(x, cs_prev, h_prev, w, wci, wcf, wco, b) -> (i, cs, f, o, ci, co, h):
//   [i, ci, f, o] = [x, h_prev] @ w + b;  with use_peephole, i += cs_prev * wci and f += cs_prev * wcf
//   i = sigmoid(i), f = sigmoid(f + forget_bias), ci = tanh(ci), cs = ci * i + cs_prev * f, clipped to
//   [-cell_clip, cell_clip] when cell_clip > 0; with use_peephole, o += cs * wco; o = sigmoid(o), co = tanh(cs),
//   h = co * o.
Status LstmBlockCell(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(std::vector<TfValue> in, FloatInputs(ctx, 8));
  const std::string &x = in[0].name, &cs_prev = in[1].name, &h_prev = in[2].name;
  const float forget_bias = ctx.node.FloatOr("forget_bias", 1.0f);
  const float cell_clip = ctx.node.FloatOr("cell_clip", 3.0f);
  const bool peephole = ctx.node.BoolOr("use_peephole", false);
  const std::string gates = Affine(ctx, x, h_prev, in[3].name, in[7].name, "gates");
  std::vector<std::string> parts = ctx.b.Op("Split", {gates}, ctx.Name("split"), {ir::IntAttr("axis", 1)}, 4);
  std::string i = parts[0], ci = parts[1], f = parts[2], o = parts[3];
  if (peephole) {
    i = ctx.b.Op1("Add", {i, ctx.b.Op1("Mul", {cs_prev, in[4].name}, ctx.Name("peep_i"))}, ctx.Name("i_peeped"));
    f = ctx.b.Op1("Add", {f, ctx.b.Op1("Mul", {cs_prev, in[5].name}, ctx.Name("peep_f"))}, ctx.Name("f_peeped"));
  }
  i = ctx.b.Op1("Sigmoid", {i}, ctx.Name("i"));
  f = ctx.b.Op1("Sigmoid",
                {ctx.b.Op1("Add", {f, ctx.b.ConstFloat(ctx.Name("forget_bias"), forget_bias)}, ctx.Name("f_biased"))},
                ctx.Name("f"));
  ci = ctx.b.Op1("Tanh", {ci}, ctx.Name("ci"));
  std::string cs = ctx.b.Op1(
      "Add", {ctx.b.Op1("Mul", {ci, i}, ctx.Name("input_part")), ctx.b.Op1("Mul", {cs_prev, f}, ctx.Name("kept_part"))},
      ctx.Name("cs_unclipped"));
  if (cell_clip > 0) {
    cs = ctx.b.Op1(
        "Clip",
        {cs, ctx.b.ConstFloat(ctx.Name("clip_min"), -cell_clip), ctx.b.ConstFloat(ctx.Name("clip_max"), cell_clip)},
        ctx.Name("cs"));
  }
  if (peephole) {
    o = ctx.b.Op1("Add", {o, ctx.b.Op1("Mul", {cs, in[6].name}, ctx.Name("peep_o"))}, ctx.Name("o_peeped"));
  }
  o = ctx.b.Op1("Sigmoid", {o}, ctx.Name("o"));
  const std::string co = ctx.b.Op1("Tanh", {cs}, ctx.Name("co"));
  const std::string h = ctx.b.Op1("Mul", {co, o}, ctx.Name("h"));
  const std::vector<std::string> outs = {i, cs, f, o, ci, co, h};
  for (size_t k = 0; k < outs.size(); ++k) ctx.SetOutput(static_cast<int>(k), outs[k], DataType::kFloat);
  return Status::Ok();
}

// GRUBlockCell(x, h_prev, w_ru, w_c, b_ru, b_c) -> (r, u, c, h):
//   [r, u] = sigmoid([x, h_prev] @ w_ru + b_ru), c = tanh([x, r * h_prev] @ w_c + b_c), h = u * h_prev + (1 - u) * c.
Status GruBlockCell(OpContext& ctx) {
  ONYX_ASSIGN_OR_RETURN(std::vector<TfValue> in, FloatInputs(ctx, 6));
  const std::string &x = in[0].name, &h_prev = in[1].name;
  const std::string ru =
      ctx.b.Op1("Sigmoid", {Affine(ctx, x, h_prev, in[2].name, in[4].name, "ru_bar")}, ctx.Name("ru"));
  std::vector<std::string> parts = ctx.b.Op("Split", {ru}, ctx.Name("split"), {ir::IntAttr("axis", 1)}, 2);
  const std::string &r = parts[0], &u = parts[1];
  const std::string rh = ctx.b.Op1("Mul", {r, h_prev}, ctx.Name("r_h"));
  const std::string c = ctx.b.Op1("Tanh", {Affine(ctx, x, rh, in[3].name, in[5].name, "c_bar")}, ctx.Name("c"));
  const std::string one_minus_u =
      ctx.b.Op1("Sub", {ctx.b.ConstFloat(ctx.Name("one"), 1.0f), u}, ctx.Name("one_minus_u"));
  const std::string h = ctx.b.Op1(
      "Add", {ctx.b.Op1("Mul", {u, h_prev}, ctx.Name("kept")), ctx.b.Op1("Mul", {one_minus_u, c}, ctx.Name("new"))},
      ctx.Name("h"));
  const std::vector<std::string> outs = {r, u, c, h};
  for (size_t k = 0; k < outs.size(); ++k) ctx.SetOutput(static_cast<int>(k), outs[k], DataType::kFloat);
  return Status::Ok();
}

}  // namespace

void AddRecurrentOps(std::map<std::string, OpFn>& t) {
  t["LSTMBlockCell"] = LstmBlockCell;
  t["GRUBlockCell"] = GruBlockCell;
}

}  // namespace onyx::convert::tf
