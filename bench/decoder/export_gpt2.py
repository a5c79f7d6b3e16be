#!/usr/bin/python3
"""Exports a GPT-2-like decoder (6 layers, hidden 512, 8 heads of 64, MLP 2048, vocabulary 8192, 256 positions,
random weights with a fixed seed, 5x GPT-2's initialization scale) with its key/value cache as inputs and outputs, for bench/decoder/decode_compare.py:

    /usr/bin/python3 bench/decoder/export_gpt2.py [OUT.onnx]   (default ~/.cache/onyx-bench/models/gpt2_like_dec6.onnx)

Inputs: input_ids int64 [batch, seq] and past_key_i / past_value_i float [batch, 8, past, 64] for each layer i
(past may be 0); outputs: logits [batch, seq, 8192] and present_key_i / present_value_i [batch, 8, past + seq, 64].
Attention is written the way GPT-2 implementations write it: q @ k^T / sqrt(d) + causal bias (a constant
[1, 1, 256, 256] buffer sliced at [past : past + seq, : past + seq], 0 or -10000), softmax, @ v. torch 1.13,
opset 17 (LayerNormalization; GELU exported as its erf formula)."""
import math
import os
import sys

import torch
from torch import nn

LAYERS, HIDDEN, HEADS, MLP, VOCAB, POSITIONS = 6, 512, 8, 2048, 8192, 256
HEAD = HIDDEN // HEADS


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(HIDDEN)
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.proj = nn.Linear(HIDDEN, HIDDEN)
        self.ln2 = nn.LayerNorm(HIDDEN)
        self.fc = nn.Linear(HIDDEN, MLP)
        self.out = nn.Linear(MLP, HIDDEN)
        self.act = nn.GELU()

    def forward(self, x, past_k, past_v, bias):
        b, s, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(HIDDEN, dim=2)
        q = q.view(b, s, HEADS, HEAD).transpose(1, 2)
        k = torch.cat([past_k, k.view(b, s, HEADS, HEAD).transpose(1, 2)], dim=2)
        v = torch.cat([past_v, v.view(b, s, HEADS, HEAD).transpose(1, 2)], dim=2)
        att = q @ k.transpose(-1, -2) / math.sqrt(HEAD) + bias
        y = torch.softmax(att, dim=-1) @ v
        x = x + self.proj(y.transpose(1, 2).reshape(b, s, HIDDEN))
        x = x + self.out(self.act(self.fc(self.ln2(x))))
        return x, k, v


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, HIDDEN)
        self.wpe = nn.Embedding(POSITIONS, HIDDEN)
        self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(HIDDEN)
        causal = torch.tril(torch.ones(POSITIONS, POSITIONS))
        self.register_buffer('causal_bias', ((1.0 - causal) * -10000.0).view(1, 1, POSITIONS, POSITIONS))

    def forward(self, input_ids, *past):
        s = input_ids.shape[1]
        p = past[0].shape[2]
        positions = torch.arange(p, p + s, dtype=torch.long).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(positions)
        bias = self.causal_bias[:, :, p:p + s, :p + s]
        presents = []
        for i, block in enumerate(self.blocks):
            x, k, v = block(x, past[2 * i], past[2 * i + 1], bias)
            presents += [k, v]
        logits = self.ln_f(x) @ self.wte.weight.t()  # tied LM head
        return (logits, *presents)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser('~/.cache/onyx-bench/models/gpt2_like_dec6.onnx')
    torch.manual_seed(2026)
    model = Decoder().eval()
    with torch.no_grad():
        # Weights 5x GPT-2's initialization scale: at 0.02 a random model's greedy output settles on one repeated
        # token, at 0.1 it keeps changing (31 distinct tokens in 40), so comparing sequences means something.
        for name, prm in model.named_parameters():
            if prm.dim() >= 2:
                prm.normal_(0.0, 0.1 if 'proj' not in name and 'out' not in name else 0.1 / math.sqrt(2 * LAYERS))
    ids = torch.randint(0, VOCAB, (1, 3))
    past = [torch.randn(1, HEADS, 4, HEAD) * 0.1 for _ in range(2 * LAYERS)]
    names_in = ['input_ids'] + [f'past_{kind}_{i}' for i in range(LAYERS) for kind in ('key', 'value')]
    names_out = ['logits'] + [f'present_{kind}_{i}' for i in range(LAYERS) for kind in ('key', 'value')]
    axes = {'input_ids': {0: 'batch', 1: 'seq'}, 'logits': {0: 'batch', 1: 'seq'}}
    for n in names_in[1:]:
        axes[n] = {0: 'batch', 2: 'past'}
    for n in names_out[1:]:
        axes[n] = {0: 'batch', 2: 'total'}
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    torch.onnx.export(model, (ids, *past), out, input_names=names_in, output_names=names_out, dynamic_axes=axes,
                      opset_version=17, do_constant_folding=True)
    print('wrote', out)


if __name__ == '__main__':
    main()
