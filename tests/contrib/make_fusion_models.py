#!/usr/bin/python3
"""Small torch-exported models for the attention fusion test (tests/unit/contrib_fusion_test.cc), written to
tests/data/contrib/fusion/<name>/ with random inputs; their reference outputs come from ONNX Runtime 1.30 on the
unfused model (ort_outputs.mjs, then finish_cases.py, as for the operator cases):
  - gpt2_tiny: a 2-layer GPT-2-like decoder with a key/value cache (q @ k^T / sqrt(d) + causal bias, softmax, @ v),
    the shape of bench/decoder/export_gpt2.py, 4-D (B, H, S, D) attention with a [1, 1, S, T] mask;
  - mha_tiny: torch.nn.MultiheadAttention (Q scaled before the product, 3-D (B*H, S, D)), no mask, 2 layers;
  - broadcast_mask: hand-written attention whose mask [B, 1, 1, T] (a padding mask) broadcasts over heads and rows.
Run with /usr/bin/python3 (torch 1.13, onnx 1.12)."""
import base64
import json
import math
import os
import shutil
import sys

import numpy as np
import torch
from onnx import numpy_helper
from torch import nn

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'contrib', 'fusion')
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'bench', 'decoder'))


def write(name, model, args, input_names, output_names, dynamic_axes=None):
    d = os.path.join(ROOT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, 'test_data_set_0'))
    torch.onnx.export(model, args, os.path.join(d, 'model.onnx'), input_names=input_names,
                      output_names=output_names, dynamic_axes=dynamic_axes, opset_version=17)
    meta = []
    for i, (n, a) in enumerate(zip(input_names, args)):
        a = a.numpy()
        with open(os.path.join(d, 'test_data_set_0', f'input_{i}.pb'), 'wb') as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
        meta.append({'name': n, 'dtype': str(a.dtype), 'dims': list(a.shape),
                     'data': base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()})
    with open(os.path.join(d, 'inputs.json'), 'w') as f:
        json.dump({'inputs': meta, 'outputs': output_names}, f)


def gpt2_tiny():
    import export_gpt2 as E
    saved = (E.LAYERS, E.HIDDEN, E.HEADS, E.MLP, E.VOCAB, E.POSITIONS, E.HEAD)
    E.LAYERS, E.HIDDEN, E.HEADS, E.MLP, E.VOCAB, E.POSITIONS = 2, 32, 4, 64, 50, 16
    E.HEAD = E.HIDDEN // E.HEADS
    torch.manual_seed(7)
    m = E.Decoder().eval()
    ids = torch.randint(0, E.VOCAB, (1, 3))
    past = [torch.randn(1, E.HEADS, 5, E.HEAD) for _ in range(2 * E.LAYERS)]
    names_in = ['input_ids'] + [f'past_{k}_{i}' for i in range(E.LAYERS) for k in ('key', 'value')]
    names_out = ['logits'] + [f'present_{k}_{i}' for i in range(E.LAYERS) for k in ('key', 'value')]
    axes = {n: {2: 'past'} for n in names_in[1:]}
    axes['input_ids'] = {1: 'seq'}
    write('gpt2_tiny', m, (ids, *past), names_in, names_out, axes)
    E.LAYERS, E.HIDDEN, E.HEADS, E.MLP, E.VOCAB, E.POSITIONS, E.HEAD = saved


class MhaStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.MultiheadAttention(32, 4)
        self.b = nn.MultiheadAttention(32, 4)

    def forward(self, x):
        y, _ = self.a(x, x, x, need_weights=False)
        z, _ = self.b(y, y, y, need_weights=False)
        return z


class PaddedAttention(nn.Module):
    def forward(self, q, k, v, pad):
        mask = (1.0 - pad[:, None, None, :]) * -10000.0  # [B, 1, 1, T]
        att = torch.matmul(q, k.transpose(-1, -2)) * 0.125 + mask
        return torch.matmul(torch.softmax(att, dim=-1), v)


def main():
    gpt2_tiny()
    torch.manual_seed(8)
    write('mha_tiny', MhaStack().eval(), (torch.randn(6, 2, 32),), ['x'], ['y'])
    torch.manual_seed(9)
    pad = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]], dtype=torch.float32)
    write('broadcast_mask', PaddedAttention(),
          (torch.randn(2, 3, 4, 8), torch.randn(2, 3, 5, 8), torch.randn(2, 3, 5, 6), pad), ['q', 'k', 'v', 'pad'],
          ['y'])


if __name__ == '__main__':
    main()
