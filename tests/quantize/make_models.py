#!/usr/bin/python3
"""Builds the small float models tests/quantize/test_quantize.py quantizes, with torch 1.13 (deterministic seeds):

- cnn.onnx: a small CNN briefly trained on a synthetic task (which colour dominates a 32x32 image patch), so its
  logits are confident as a real classifier's: Conv/Relu, a residual Add, MaxPool, a two-branch Concat,
  AveragePool, Relu6 (Clip), GlobalAveragePool, Flatten, Gemm;
- mlp.onnx: a transformer-ish block over [1, 16, 64] tokens: MatMul projections (3-D inputs), attention
  (MatMul of two activations, Softmax), LayerNorm, Gelu-ish MLP, a residual, and a 2-D Gemm head.

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
    if args.big_calibration:
        big = np.random.default_rng(3).normal(size=(args.big_calibration, 1, 16, 64)).astype(np.float32)
        save_sets(os.path.join(args.out, "big_calibration"), list(big))


if __name__ == "__main__":
    main()
