#!/usr/bin/python3
"""Builds the small float models tests/quantize/test_quantize.py quantizes, with torch 1.13 (deterministic seeds):

- cnn.onnx: a small CNN briefly trained on a synthetic task (which colour dominates a 32x32 image patch), so its
  logits are confident as a real classifier's: Conv/Relu, a residual Add, MaxPool, a two-branch Concat,
  AveragePool, Relu6 (Clip), GlobalAveragePool, Flatten, Gemm;
- mlp.onnx: a transformer-ish block over [1, 16, 64] tokens: MatMul projections (3-D inputs), attention
  (MatMul of two activations, Softmax), LayerNorm, Gelu-ish MLP, a residual, and a 2-D Gemm head.

- prep.onnx: Pad -> Conv (no bias) -> BatchNormalization -> Relu -> Identity -> GlobalAveragePool -> Flatten ->
  MatMul + Add, written with onnx.helper (torch folds BatchNormalization itself), for what onyx quantize folds first;
- relu6.onnx: Conv -> Clip(0, 6) -> Conv where 2 of the 16 channels always saturate at 6 and the others stay
  mostly under 1.5 (a spike at the top of the range, as in trained MobileNets), for entropy calibration;

and calibration / evaluation folders of test_data_set_N/input_0.pb from the same input distributions.

usage: make_models.py OUT_DIR [--calibration N] [--evaluation N] [--big-calibration N]
"""
import argparse
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.c1 = nn.Conv2d(16, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.b1 = nn.Conv2d(16, 16, 1)
        self.b2 = nn.Conv2d(16, 8, 3, padding=1)
        self.avg = nn.AvgPool2d(2)
        self.c3 = nn.Conv2d(24, 32, 3, padding=1)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        y = torch.relu(self.stem(x))
        y = torch.relu(self.c2(torch.relu(self.c1(y))) + y)
        y = self.pool(y)
        y = torch.cat([torch.relu(self.b1(y)), torch.relu(self.b2(y))], 1)
        y = self.avg(y)
        y = torch.clamp(self.c3(y), 0, 6)
        y = torch.flatten(nn.functional.adaptive_avg_pool2d(y, 1), 1)
        return self.head(y)


class Block(nn.Module):
    def __init__(self, d=64, heads=4):
        super().__init__()
        self.h, self.d = heads, d
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        self.head = nn.Linear(d, 10)

    def forward(self, x):  # [1, T, d]
        t = x.shape[1]
        q, k, v = self.qkv(self.ln1(x)).split(self.d, dim=2)
        q = q.reshape(1, t, self.h, self.d // self.h).transpose(1, 2)
        k = k.reshape(1, t, self.h, self.d // self.h).transpose(1, 2)
        v = v.reshape(1, t, self.h, self.d // self.h).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(2, 3) / (self.d // self.h) ** 0.5, dim=-1) @ v
        x = x + self.proj(a.transpose(1, 2).reshape(1, t, self.d))
        x = x + self.fc2(torch.tanh(self.fc1(self.ln2(x))))
        return self.head(x.mean(dim=1))  # [1, 10] through a 2-D Gemm


def images(rng, n):
    """32x32 RGB patches: smooth noise plus one dominant colour (the label)."""
    x = rng.normal(0.0, 0.3, size=(n, 3, 32, 32)).astype(np.float32)
    x = (x + np.roll(x, 1, 2) + np.roll(x, 1, 3)) / 3
    labels = rng.integers(0, 4, size=n)
    for i, c in enumerate(labels):
        if c < 3:
            x[i, c] += 0.8
        else:
            x[i] -= 0.5
    return x, labels


def train_cnn():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = SmallCnn()
    opt = torch.optim.Adam(model.parameters(), 3e-3)
    for _ in range(60):
        x, y = images(rng, 32)
        loss = nn.functional.cross_entropy(model(torch.from_numpy(x)), torch.from_numpy(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return model.eval()


def save_sets(folder, arrays, name="input"):
    for i, a in enumerate(arrays):
        d = os.path.join(folder, "test_data_set_%d" % i)
        os.makedirs(d, exist_ok=True)
        t = numpy_helper.from_array(np.ascontiguousarray(a), name)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(t.SerializeToString())


def export(model, example, path):
    with torch.no_grad():
        torch.onnx.export(model, example, path, input_names=["input"], output_names=["output"], opset_version=13,
                          do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path))


def prep_model(path):
    from onnx import helper, TensorProto
    rng = np.random.default_rng(4)
    c = 8
    init = [numpy_helper.from_array(a.astype(np.float32) if a.dtype != np.int64 else a, n) for n, a in (
        ("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64)),
        ("w", rng.normal(0, 0.3, (c, 3, 3, 3))),
        ("bn_scale", rng.uniform(0.2, 3.0, c)), ("bn_bias", rng.normal(0, 0.5, c)),
        ("bn_mean", rng.normal(0, 0.5, c)), ("bn_var", rng.uniform(0.3, 2.0, c)),
        ("fc_w", rng.normal(0, 0.5, (c, 4))), ("fc_b", rng.normal(0, 0.1, 4)))]
    nodes = [helper.make_node("Pad", ["input", "pads"], ["padded"], name="pad"),
             helper.make_node("Conv", ["padded", "w"], ["conv"], name="conv"),
             helper.make_node("BatchNormalization", ["conv", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["bn"],
                              name="bn"),
             helper.make_node("Relu", ["bn"], ["relu"], name="relu"),
             helper.make_node("Identity", ["relu"], ["same"], name="identity"),
             helper.make_node("GlobalAveragePool", ["same"], ["gap"], name="gap"),
             helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
             helper.make_node("MatMul", ["flat", "fc_w"], ["mm"], name="fc"),
             helper.make_node("Add", ["mm", "fc_b"], ["output"], name="fc_bias")]
    graph = helper.make_graph(nodes, "prep", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4])], init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def relu6_model(path):
    from onnx import helper, TensorProto
    rng = np.random.default_rng(5)
    init = [numpy_helper.from_array(a.astype(np.float32), n) for n, a in (
        ("w1", rng.normal(0, 0.5, (16, 3, 1, 1))), ("b1", np.array([8.0] * 2 + [-0.5] * 14)),
        ("lo", np.array(0.0)), ("hi", np.array(6.0)),
        ("w2", rng.normal(0, 0.3, (4, 16, 1, 1))), ("b2", np.zeros(4)))]
    nodes = [helper.make_node("Conv", ["input", "w1", "b1"], ["conv1"], name="conv1"),
             helper.make_node("Clip", ["conv1", "lo", "hi"], ["relu6"], name="relu6"),
             helper.make_node("Conv", ["relu6", "w2", "b2"], ["output"], name="conv2")]
    graph = helper.make_graph(nodes, "relu6", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 8, 8])], init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--calibration", type=int, default=32)
    ap.add_argument("--evaluation", type=int, default=64)
    ap.add_argument("--big-calibration", type=int, default=0, help="also a big_calibration folder for the MLP")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    cnn = train_cnn()
    export(cnn, torch.zeros(1, 3, 32, 32), os.path.join(args.out, "cnn.onnx"))
    rng = np.random.default_rng(1)
    x, _ = images(rng, args.calibration + args.evaluation)
    save_sets(os.path.join(args.out, "cnn_calibration"), [x[i:i + 1] for i in range(args.calibration)])
    save_sets(os.path.join(args.out, "cnn_evaluation"), [x[i:i + 1] for i in range(args.calibration, len(x))])

    torch.manual_seed(1)
    block = Block().eval()
    export(block, torch.zeros(1, 16, 64), os.path.join(args.out, "mlp.onnx"))
    tokens = np.random.default_rng(2).normal(size=(args.calibration + args.evaluation, 1, 16, 64)).astype(np.float32)
    save_sets(os.path.join(args.out, "mlp_calibration"), list(tokens[:args.calibration]))
    save_sets(os.path.join(args.out, "mlp_evaluation"), list(tokens[args.calibration:]))
    prep_model(os.path.join(args.out, "prep.onnx"))
    x = np.random.default_rng(6).normal(size=(args.calibration + args.evaluation, 1, 3, 16, 16)).astype(np.float32)
    save_sets(os.path.join(args.out, "prep_calibration"), list(x[:args.calibration]))
    save_sets(os.path.join(args.out, "prep_evaluation"), list(x[args.calibration:]))
    relu6_model(os.path.join(args.out, "relu6.onnx"))
    x = np.random.default_rng(7).normal(size=(args.calibration, 1, 3, 8, 8)).astype(np.float32)
    save_sets(os.path.join(args.out, "relu6_calibration"), list(x))
    if args.big_calibration:
        big = np.random.default_rng(3).normal(size=(args.big_calibration, 1, 16, 64)).astype(np.float32)
        save_sets(os.path.join(args.out, "big_calibration"), list(big))


if __name__ == "__main__":
    main()
