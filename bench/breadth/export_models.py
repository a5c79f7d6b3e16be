#!/usr/bin/python3
"""Exports architectures the image benchmark set does not cover (random weights, seed 0, opset 17, batch 1) for
bench/breadth/compare.sh. Sequence models: recurrent layers (LSTM, GRU; uni- and bidirectional, stacked), a
speech-like front end (1-D convolutions, GroupNorm, GELU) with a Transformer encoder after it, a text CNN over an
embedding (Gather), PyTorch's own nn.TransformerEncoder (pre- and post-norm). And a diffusion U-Net's stage
(ResNet blocks of GroupNorm, SiLU and 3x3 convolutions, a time embedding, spatial self-attention).

    /usr/bin/python3 bench/breadth/export_models.py [OUT_DIR [NAME...]]
        (default OUT_DIR ~/.cache/onyx-bench/breadth; existing files are kept)

Needs Debian's python3-torch (1.13)."""
import os
import sys

import torch
from torch import nn


class Recurrent(nn.Module):
    """Acoustic-model-like: stacked recurrent layers over 80 features, a per-frame classifier."""

    def __init__(self, cell, hidden, layers, bidirectional):
        super().__init__()
        self.rnn = cell(80, hidden, num_layers=layers, batch_first=True, bidirectional=bidirectional)
        self.out = nn.Linear(hidden * (2 if bidirectional else 1), 32)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.out(y).log_softmax(-1)


class SpeechEncoder(nn.Module):
    """wav2vec-like: strided 1-D convolutions over raw audio, GroupNorm, GELU, then Transformer encoder layers."""

    def __init__(self, dim=256, layers=4):
        super().__init__()
        convs = [nn.Conv1d(1, 256, 10, 5), nn.GroupNorm(256, 256), nn.GELU()]
        for k in (3, 3, 3, 3, 2, 2):
            convs += [nn.Conv1d(256, 256, k, 2), nn.GELU()]
        self.features = nn.Sequential(*convs)
        self.project = nn.Linear(256, dim)
        layer = nn.TransformerEncoderLayer(dim, 4, dim * 4, dropout=0.0, activation="gelu", batch_first=True,
                                           norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, audio):
        x = self.features(audio).transpose(1, 2)
        return self.encoder(self.project(x))


class TextCnn(nn.Module):
    """Kim-style sentence classifier: embedding, parallel 1-D convolutions, max over time."""

    def __init__(self, vocab=30000, dim=300):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.convs = nn.ModuleList(nn.Conv1d(dim, 128, k, padding=k // 2) for k in (3, 4, 5))
        self.out = nn.Linear(3 * 128, 4)

    def forward(self, tokens):
        x = self.embed(tokens).transpose(1, 2)
        pooled = [torch.relu(c(x)).amax(-1) for c in self.convs]
        return self.out(torch.cat(pooled, 1))


class DiffusionResBlock(nn.Module):
    """Stable Diffusion's U-Net ResNet block: GroupNorm(32) + SiLU + 3x3 conv, twice, the time embedding added."""

    def __init__(self, channels):
        super().__init__()
        self.norm1 = nn.GroupNorm(32, channels)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.time = nn.Linear(1280, channels)
        self.norm2 = nn.GroupNorm(32, channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x, t):
        h = self.conv1(nn.functional.silu(self.norm1(x)))
        h = h + self.time(nn.functional.silu(t))[:, :, None, None]
        return x + self.conv2(nn.functional.silu(self.norm2(h)))


class DiffusionStage(nn.Module):
    """Two ResNet blocks and a spatial transformer's self-attention at 32x32 with 320 channels (a 256-pixel image's
    first U-Net level); the time embedding is a fixed input here, so the model has one input."""

    def __init__(self, channels=320):
        super().__init__()
        self.blocks = nn.ModuleList(DiffusionResBlock(channels) for _ in range(2))
        self.norm = nn.GroupNorm(32, channels, eps=1e-6)
        self.attn = nn.MultiheadAttention(channels, 8, batch_first=True)
        self.register_buffer("t", torch.randn(1, 1280))

    def forward(self, x):
        for block in self.blocks:
            x = block(x, self.t)
        n, c, h, w = x.shape
        seq = self.norm(x).flatten(2).transpose(1, 2)
        attended, _ = self.attn(seq, seq, seq, need_weights=False)
        return x + attended.transpose(1, 2).reshape(n, c, h, w)


def transformer(norm_first):
    layer = nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, batch_first=True, norm_first=norm_first)
    return nn.TransformerEncoder(layer, 6, enable_nested_tensor=False)


# name: (constructor, input shape, input dtype)
SPECS = {
    "lstm2_256": (lambda: Recurrent(nn.LSTM, 256, 2, False), (1, 200, 80), torch.float32),
    "bilstm2_256": (lambda: Recurrent(nn.LSTM, 256, 2, True), (1, 200, 80), torch.float32),
    "gru3_512": (lambda: Recurrent(nn.GRU, 512, 3, False), (1, 100, 80), torch.float32),
    "bigru1_128": (lambda: Recurrent(nn.GRU, 128, 1, True), (1, 400, 80), torch.float32),
    "speech_encoder": (SpeechEncoder, (1, 1, 32000), torch.float32),
    "text_cnn": (TextCnn, (1, 256), torch.int64),
    "transformer_post": (lambda: transformer(False), (1, 128, 512), torch.float32),
    "transformer_pre": (lambda: transformer(True), (1, 128, 512), torch.float32),
    "diffusion_stage": (DiffusionStage, (1, 320, 32, 32), torch.float32),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/onyx-bench/breadth")
    names = sys.argv[2:] or list(SPECS)
    os.makedirs(out, exist_ok=True)
    failed = 0
    for name in names:
        make, shape, dtype = SPECS[name]
        path = os.path.join(out, name + ".onnx")
        if os.path.exists(path):
            continue
        torch.manual_seed(0)
        try:
            model = make().eval()
            x = torch.randint(0, 30000, shape) if dtype == torch.int64 else torch.randn(shape)
            # With gradients enabled (no torch.no_grad), nn.TransformerEncoderLayer takes its plain path, not the
            # fused native kernel that has no ONNX export.
            torch.onnx.export(model, (x,), path, opset_version=17, input_names=["input"], output_names=["output"],
                              do_constant_folding=True)
            print(f"exported {name}")
        except Exception as e:  # one architecture that does not export must not stop the others
            print(f"{name}: export failed: {e}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
