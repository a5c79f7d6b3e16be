#!/usr/bin/python3
"""Corpus cases for the layers TF.js 4.22 lacks (or defines differently from Keras): MultiHeadAttention, GRU with
reset_after=True, Subtract, Normalization, Conv1DTranspose, DepthwiseConv1D, SeparableConv1D, causal Conv1D,
ZeroPadding / Cropping / UpSampling 1D and 3D, GlobalAverage/MaxPooling3D, and the Keras 3 activations
hard_swish, exponential, leaky_relu and hard_sigmoid (relu6(x + 3) / 6); and Keras masks (Masking,
Embedding(mask_zero=True)) consumed by LSTM, GRU, Bidirectional, GlobalAveragePooling1D and MultiHeadAttention.

Each case is written like gen_corpus.mjs's (model.json in the TF.js layers format with a Keras 2 style config,
one float32 shard, seeded inputs, meta.json), so wrap_keras.py re-wraps it as model.h5 and model.keras. The
reference outputs are computed here with numpy (float64, stored as float32), following Keras's own definitions
(keras/src/layers/...): they do not come from the converter or from onyx.

Cases whose semantics exist only in Keras 3 get meta "only": ["keras"] (wrap_keras.py then writes only the
.keras form and run_corpus.py compares only that).

usage: /usr/bin/python3 tests/convert/keras/gen_numpy_cases.py tests/data/keras
"""
import json
import os
import sys

import numpy as np

rng = np.random.default_rng(20261130)


def rand(*shape, scale=0.5):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# ---------------------------------------------------------------------------------------------------------------
# numpy definitions of the Keras layers (channels-last, batch first)

def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def relu6(x):
    return np.clip(x, 0.0, 6.0)


def same_pads(length, k, s, d):
    """TensorFlow's 'same': total padding so that out = ceil(L / s), the extra element on the right."""
    eff = (k - 1) * d + 1
    out = -(-length // s)
    total = max((out - 1) * s + eff - length, 0)
    return total // 2, total - total // 2


def conv1d(x, kernel, bias, stride=1, dilation=1, padding="valid"):
    """kernel [k, in, out] (Keras's layout)."""
    k = kernel.shape[0]
    if padding == "causal":
        x = np.pad(x, ((0, 0), ((k - 1) * dilation, 0), (0, 0)))
    elif padding == "same":
        left, right = same_pads(x.shape[1], k, stride, dilation)
        x = np.pad(x, ((0, 0), (left, right), (0, 0)))
    eff = (k - 1) * dilation + 1
    out_len = (x.shape[1] - eff) // stride + 1
    y = np.zeros((x.shape[0], out_len, kernel.shape[2]))
    for t in range(out_len):
        for j in range(k):
            y[:, t, :] += x[:, t * stride + j * dilation, :] @ kernel[j]
    return y + (0 if bias is None else bias)


def depthwise1d(x, kernel, bias, stride=1, dilation=1, padding="valid"):
    """kernel [k, in, mult]: output channel c * mult + m sees input channel c only."""
    k, cin, mult = kernel.shape
    full = np.zeros((k, cin, cin * mult))
    for c in range(cin):
        full[:, c, c * mult:(c + 1) * mult] = kernel[:, c, :]
    return conv1d(x, full, bias, stride, dilation, padding)


def conv1d_transpose_valid(x, kernel, bias, stride):
    """kernel [k, out, in]; Keras's 'valid' length L * s + max(k - s, 0)."""
    k = kernel.shape[0]
    length = x.shape[1]
    y = np.zeros((x.shape[0], length * stride + max(k - stride, 0), kernel.shape[1]))
    for t in range(length):
        for j in range(k):
            y[:, t * stride + j, :] += x[:, t, :] @ kernel[j].T
    return y + bias


def gru_reset_after(x, kernel, recurrent, bias, units):
    """Keras GRU, reset_after=True: gates z, r, h; bias [2, 3U] = input bias, recurrent bias."""
    h = np.zeros((x.shape[0], units))
    outs = []
    for t in range(x.shape[1]):
        xi = x[:, t, :] @ kernel + bias[0]
        hr = h @ recurrent + bias[1]
        z = sigmoid(xi[:, :units] + hr[:, :units])
        r = sigmoid(xi[:, units:2 * units] + hr[:, units:2 * units])
        hh = np.tanh(xi[:, 2 * units:] + r * hr[:, 2 * units:])
        h = z * h + (1 - z) * hh
        outs.append(h)
    return np.stack(outs, 1)


def run_rnn(step, x, mask, state, go_backwards=False):
    """Keras's masked recurrence: at a masked step the state (and so the last output) is carried unchanged."""
    order = range(x.shape[1] - 1, -1, -1) if go_backwards else range(x.shape[1])
    for t in order:
        new = step(x[:, t, :], state)
        keep = mask[:, t][:, None] if mask is not None else np.ones((x.shape[0], 1), bool)
        state = tuple(np.where(keep, n, o) for n, o in zip(new, state))
    return state


def run_rnn_sequence(step, x, mask, state):
    """return_sequences=True: at a masked step Keras repeats the previous output (zero before the first)."""
    outs, prev = [], np.zeros_like(state[0])
    for t in range(x.shape[1]):
        new = step(x[:, t, :], state)
        keep = mask[:, t][:, None]
        state = tuple(np.where(keep, n, o) for n, o in zip(new, state))
        prev = np.where(keep, new[0], prev)
        outs.append(prev)
    return np.stack(outs, 1)


def lstm_step(kernel, rec, bias, units):
    def step(xt, state):
        h, c = state
        z = xt @ kernel + h @ rec + bias  # gates i, f, c, o
        i, f = sigmoid(z[:, :units]), sigmoid(z[:, units:2 * units])
        c = f * c + i * np.tanh(z[:, 2 * units:3 * units])
        return sigmoid(z[:, 3 * units:]) * np.tanh(c), c
    return step


def simple_rnn_step(kernel, rec, bias):
    return lambda xt, state: (np.tanh(xt @ kernel + state[0] @ rec + bias),)


def gru_step(kernel, rec, bias, units):  # reset_after=True
    def step(xt, state):
        h = state[0]
        xi, hr = xt @ kernel + bias[0], h @ rec + bias[1]
        z = sigmoid(xi[:, :units] + hr[:, :units])
        r = sigmoid(xi[:, units:2 * units] + hr[:, units:2 * units])
        hh = np.tanh(xi[:, 2 * units:] + r * hr[:, 2 * units:])
        return (z * h + (1 - z) * hh,)
    return step


def mha(query, value, key, w, heads, key_dim, value_dim, mask=None, causal=False, query_mask=None,
        value_mask=None, return_scores=False):
    """Keras MultiHeadAttention on [B, T, dim] inputs (multi_head_attention.py: EinsumDense projections, query
    scaled by 1/sqrt(key_dim), masked softmax over the key axis, output projection)."""
    def proj(x, kernel, bias):
        y = np.einsum("abc,cde->abde", x, kernel)
        return y if bias is None else y + bias

    q = proj(query, w["query/kernel"], w.get("query/bias")) * (1.0 / np.sqrt(float(key_dim)))
    k = proj(key, w["key/kernel"], w.get("key/bias"))
    v = proj(value, w["value/kernel"], w.get("value/bias"))
    scores = np.einsum("aecd,abcd->acbe", k, q)  # [B, H, T, S]
    keep = None
    if mask is not None:
        keep = mask.astype(bool)[:, None, :, :]
    if query_mask is not None or value_mask is not None:  # Keras's _compute_attention_mask
        auto = np.ones((query.shape[0], query.shape[1], value.shape[1]), bool)
        if query_mask is not None:
            auto &= query_mask[:, :, None]
        if value_mask is not None:
            auto &= value_mask[:, None, :]
        keep = auto[:, None] if keep is None else keep & auto[:, None]
    if causal:
        t, s = query.shape[1], value.shape[1]
        tri = np.arange(t)[:, None] >= np.arange(s)[None, :]
        keep = tri[None, None] if keep is None else keep & tri[None, None]
    if keep is not None:
        scores = np.where(keep, scores, -1e9)
    scores = scores - scores.max(-1, keepdims=True)
    probs = np.exp(scores)
    probs /= probs.sum(-1, keepdims=True)
    ctx = np.einsum("acbe,aecd->abcd", probs, v)  # [B, T, H, Dv]
    y = np.einsum("abcd,cde->abe", ctx, w["attention_output/kernel"])
    b = w.get("attention_output/bias")
    y = y if b is None else y + b
    return (y, probs) if return_scores else y


# ---------------------------------------------------------------------------------------------------------------
# model.json writing

def layer(cls, name, config, inbound=None):
    cfg = dict(config)
    cfg["name"] = name
    cfg.setdefault("trainable", True)
    out = {"class_name": cls, "config": cfg, "name": name}
    if inbound is not None:
        out["inbound_nodes"] = inbound
    return out


def input_layer(name, shape, dtype="float32"):
    return layer("InputLayer", name, {"batch_input_shape": [None] + list(shape), "dtype": dtype, "sparse": False},
                 [])


def write_case(root, name, model, weights, inputs, outputs, only=None):
    """model: Keras 2 style model config; weights: [(name, array)]; inputs: [(name, array)], outputs: [(name,
    array)]."""
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    manifest, blob = [], b""
    for wname, arr in weights:
        arr = np.asarray(arr, np.float32)
        manifest.append({"name": wname, "shape": list(arr.shape), "dtype": "float32"})
        blob += arr.tobytes()
    with open(os.path.join(d, "group1-shard1of1.bin"), "wb") as f:
        f.write(blob)
    mj = {"format": "layers-model", "generatedBy": "gen_numpy_cases.py", "convertedBy": None,
          "modelTopology": {"class_name": model["class_name"], "config": model["config"],
                            "keras_version": "2.15.0", "backend": "tensorflow"},
          "weightsManifest": [{"paths": ["group1-shard1of1.bin"], "weights": manifest}]}
    json.dump(mj, open(os.path.join(d, "model.json"), "w"))
    meta = {"inputs": [], "outputs": [], "skip": [], "reference": "numpy (gen_numpy_cases.py)"}
    if only:
        meta["only"] = only
    for i, (iname, arr) in enumerate(inputs):
        arr = np.asarray(arr)
        np.save(os.path.join(d, "input_%d.npy" % i), arr if arr.dtype.kind == "i" else arr.astype(np.float32))
        meta["inputs"].append({"name": iname, "file": "input_%d.npy" % i})
    for i, (oname, arr) in enumerate(outputs):
        arr = np.asarray(arr, np.float32)
        np.save(os.path.join(d, "output_%d.npy" % i), arr)
        meta["outputs"].append({"name": oname, "file": "output_%d.npy" % i, "shape": list(arr.shape)})
    json.dump(meta, open(os.path.join(d, "meta.json"), "w"), indent=1)
    print(name)


def functional(name, layers, inputs, outputs):
    return {"class_name": "Functional",
            "config": {"name": name, "layers": layers, "input_layers": [[n, 0, 0] for n in inputs],
                       "output_layers": [[n, 0, 0] for n in outputs]}}


def sequential(name, layers):
    return {"class_name": "Sequential", "config": {"name": name, "layers": layers}}


# ---------------------------------------------------------------------------------------------------------------
# the cases

def mha_weights(prefix, dq, dk, dv, heads, key_dim, value_dim, out_dim, use_bias):
    w = {}
    w["query/kernel"] = rand(dq, heads, key_dim)
    if use_bias:
        w["query/bias"] = rand(heads, key_dim)
    w["key/kernel"] = rand(dk, heads, key_dim)
    if use_bias:
        w["key/bias"] = rand(heads, key_dim)
    w["value/kernel"] = rand(dv, heads, value_dim)
    if use_bias:
        w["value/bias"] = rand(heads, value_dim)
    w["attention_output/kernel"] = rand(heads, value_dim, out_dim)
    if use_bias:
        w["attention_output/bias"] = rand(out_dim)
    return w, [(prefix + "/" + k, v) for k, v in w.items()]


def case_mha_self_mask(root):
    # Self-attention (value = key = query) with an attention_mask input; every query row keeps >= 1 position.
    heads, key_dim, dim, t = 2, 4, 8, 5
    w, wl = mha_weights("mha", dim, dim, dim, heads, key_dim, key_dim, dim, True)
    x = rand(2, t, dim, scale=1.0)
    mask = (rng.random((2, t, t)) > 0.4).astype(np.float32)
    mask[:, :, 0] = 1
    y = mha(x, x, x, w, heads, key_dim, key_dim, mask=mask)
    cfg = {"num_heads": heads, "key_dim": key_dim, "value_dim": key_dim, "dropout": 0.1, "use_bias": True,
           "output_shape": None, "attention_axes": None}
    layers = [input_layer("x", (t, dim)), input_layer("m", (t, t)),
              layer("MultiHeadAttention", "mha", cfg,
                    [[["x", 0, 0, {"value": ["x", 0, 0], "attention_mask": ["m", 0, 0]}]]])]
    write_case(root, "mha_self_mask", functional("mha_self_mask", layers, ["x", "m"], ["mha"]), wl,
               [("x", x), ("m", mask)], [("mha", y)])


def case_mha_cross_causal(root):
    # Cross-attention with a separate key, value_dim != key_dim, output_shape, no biases, use_causal_mask; the
    # result feeds a Dense so the layer sits inside a graph.
    heads, key_dim, value_dim, out_dim = 3, 2, 3, 5
    tq, ts, dq, dk, dv = 4, 6, 6, 7, 8
    w, wl = mha_weights("cross", dq, dk, dv, heads, key_dim, value_dim, out_dim, False)
    q, v, k = rand(2, tq, dq, scale=1.0), rand(2, ts, dv, scale=1.0), rand(2, ts, dk, scale=1.0)
    att = mha(q, v, k, w, heads, key_dim, value_dim, causal=True)
    dense_k, dense_b = rand(out_dim, 3), rand(3)
    y = att @ dense_k + dense_b
    cfg = {"num_heads": heads, "key_dim": key_dim, "value_dim": value_dim, "dropout": 0.0, "use_bias": False,
           "output_shape": out_dim, "attention_axes": [1]}
    layers = [input_layer("q", (tq, dq)), input_layer("v", (ts, dv)), input_layer("k", (ts, dk)),
              layer("MultiHeadAttention", "cross", cfg,
                    [[["q", 0, 0, {"value": ["v", 0, 0], "key": ["k", 0, 0], "use_causal_mask": True}]]]),
              layer("Dense", "head", {"units": 3, "activation": "linear", "use_bias": True},
                    [[["cross", 0, 0, {}]]])]
    wl += [("head/kernel", dense_k), ("head/bias", dense_b)]
    write_case(root, "mha_cross_causal", functional("mha_cross_causal", layers, ["q", "v", "k"], ["head"]), wl,
               [("q", q), ("v", v), ("k", k)], [("head", y)])


def case_gru_reset_after(root):
    units, feat, t = 3, 4, 5
    kernel, rec, bias = rand(feat, 3 * units), rand(units, 3 * units), rand(2, 3 * units)
    x = rand(2, t, feat, scale=1.0)
    y = gru_reset_after(x, kernel, rec, bias, units)
    cfg = {"units": units, "activation": "tanh", "recurrent_activation": "sigmoid", "use_bias": True,
           "return_sequences": True, "return_state": False, "go_backwards": False, "stateful": False,
           "unroll": False, "reset_after": True, "batch_input_shape": [None, t, feat], "dtype": "float32"}
    write_case(root, "gru_reset_after", sequential("gru_reset_after", [layer("GRU", "gru", cfg)]),
               [("gru/kernel", kernel), ("gru/recurrent_kernel", rec), ("gru/bias", bias)],
               [("gru_input", x)], [("gru", y)])


def case_layers1d(root):
    x = rand(2, 7, 3, scale=1.0)
    c_k, c_b = rand(3, 3, 4), rand(4)
    d_k, d_b = rand(3, 4, 2), rand(8)
    s_dk, s_pk, s_b = rand(2, 8, 1), rand(1, 8, 3), rand(3)
    t_k, t_b = rand(3, 2, 3), rand(2)
    h = np.pad(x, ((0, 0), (1, 2), (0, 0)))                      # ZeroPadding1D((1, 2))
    h = conv1d(h, c_k, c_b, dilation=2, padding="causal")       # Conv1D causal, dilation 2
    h = h[:, 1:-1, :]                                           # Cropping1D((1, 1))
    h = np.repeat(h, 2, axis=1)                                 # UpSampling1D(2)
    h = depthwise1d(h, d_k, d_b, padding="same")                # DepthwiseConv1D(3, depth_multiplier 2)
    h = depthwise1d(h, s_dk, None, stride=2)                    # SeparableConv1D(3, 2, strides 2): depthwise
    h = conv1d(h, s_pk, s_b)                                    # ... then pointwise
    y = conv1d_transpose_valid(h, t_k, t_b, stride=2)           # Conv1DTranspose(2, 3, strides 2)
    layers = [
        layer("ZeroPadding1D", "zp", {"padding": [1, 2], "batch_input_shape": [None, 7, 3], "dtype": "float32"}),
        layer("Conv1D", "causal", {"filters": 4, "kernel_size": [3], "strides": [1], "padding": "causal",
                                   "dilation_rate": [2], "activation": "linear", "use_bias": True, "groups": 1,
                                   "data_format": "channels_last"}),
        layer("Cropping1D", "crop", {"cropping": [1, 1]}),
        layer("UpSampling1D", "up", {"size": 2}),
        layer("DepthwiseConv1D", "dw", {"kernel_size": [3], "strides": [1], "padding": "same",
                                        "depth_multiplier": 2, "dilation_rate": [1], "activation": "linear",
                                        "use_bias": True, "data_format": "channels_last"}),
        layer("SeparableConv1D", "sep", {"filters": 3, "kernel_size": [2], "strides": [2], "padding": "valid",
                                         "depth_multiplier": 1, "dilation_rate": [1], "activation": "linear",
                                         "use_bias": True, "data_format": "channels_last"}),
        layer("Conv1DTranspose", "deconv", {"filters": 2, "kernel_size": [3], "strides": [2], "padding": "valid",
                                            "output_padding": None, "dilation_rate": [1], "activation": "linear",
                                            "use_bias": True, "data_format": "channels_last"}),
    ]
    weights = [("causal/kernel", c_k), ("causal/bias", c_b), ("dw/depthwise_kernel", d_k), ("dw/bias", d_b),
               ("sep/depthwise_kernel", s_dk), ("sep/pointwise_kernel", s_pk), ("sep/bias", s_b),
               ("deconv/kernel", t_k), ("deconv/bias", t_b)]
    write_case(root, "layers1d", sequential("layers1d", layers), weights, [("zp_input", x)], [("deconv", y)])


def case_layers3d(root):
    # 3-D padding / cropping / upsampling, both global 3-D poolings, Subtract and Normalization (adapted
    # mean / variance weights, Keras: (x - mean) / max(sqrt(variance), 1e-7)).
    x = rand(2, 3, 4, 2, 3, scale=1.0)
    mean, var = rand(3), np.abs(rand(3)) + 0.1
    h = np.pad(x, ((0, 0), (1, 0), (0, 1), (1, 1), (0, 0)))       # ZeroPadding3D
    h = h[:, 0:h.shape[1] - 1, 1:, :, :]                         # Cropping3D(((0, 1), (1, 0), (0, 0)))
    h = np.repeat(np.repeat(h, 2, axis=1), 2, axis=3)            # UpSampling3D((2, 1, 2))
    gap, gmp = h.mean(axis=(1, 2, 3)), h.max(axis=(1, 2, 3))
    diff = gap - gmp
    y = (diff - mean) / np.maximum(np.sqrt(var), 1e-7)
    layers = [
        input_layer("vol", (3, 4, 2, 3)),
        layer("ZeroPadding3D", "zp3", {"padding": [[1, 0], [0, 1], [1, 1]], "data_format": "channels_last"},
              [[["vol", 0, 0, {}]]]),
        layer("Cropping3D", "crop3", {"cropping": [[0, 1], [1, 0], [0, 0]], "data_format": "channels_last"},
              [[["zp3", 0, 0, {}]]]),
        layer("UpSampling3D", "up3", {"size": [2, 1, 2], "data_format": "channels_last"}, [[["crop3", 0, 0, {}]]]),
        layer("GlobalAveragePooling3D", "gap3", {"data_format": "channels_last", "keepdims": False},
              [[["up3", 0, 0, {}]]]),
        layer("GlobalMaxPooling3D", "gmp3", {"data_format": "channels_last", "keepdims": False},
              [[["up3", 0, 0, {}]]]),
        layer("Subtract", "sub", {}, [[["gap3", 0, 0, {}], ["gmp3", 0, 0, {}]]]),
        layer("Normalization", "norm", {"axis": [-1], "mean": None, "variance": None, "invert": False},
              [[["sub", 0, 0, {}]]]),
    ]
    weights = [("norm/mean", mean), ("norm/variance", var), ("norm/count", np.zeros((), np.float32))]
    write_case(root, "layers3d", functional("layers3d", layers, ["vol"], ["norm"]), weights, [("vol", x)],
               [("norm", y)])


def case_keras3_activations(root):
    # Keras 3's definitions: hard_sigmoid = relu6(x + 3) / 6, hard_swish = x * that, leaky_relu slope 0.2.
    x = rand(2, 6, scale=3.0)
    k, b = rand(6, 6), rand(6)
    h = x @ k + b
    h = h * relu6(h + 3) / 6                   # Dense(activation="hard_swish")
    h = np.where(h >= 0, h, 0.2 * h)           # Activation("leaky_relu")
    h = relu6(h + 3) / 6                       # Activation("hard_sigmoid")
    y = np.exp(h)                              # Activation("exponential")
    layers = [layer("Dense", "d", {"units": 6, "activation": "hard_swish", "use_bias": True,
                                   "batch_input_shape": [None, 6], "dtype": "float32"}),
              layer("Activation", "lrelu", {"activation": "leaky_relu"}),
              layer("Activation", "hsig", {"activation": "hard_sigmoid"}),
              layer("Activation", "expo", {"activation": "exponential"})]
    write_case(root, "keras3_activations", sequential("keras3_activations", layers), [("d/kernel", k), ("d/bias", b)],
               [("d_input", x)], [("expo", y)], only=["keras"])


def rnn_config(units, **kw):
    cfg = {"units": units, "activation": "tanh", "recurrent_activation": "sigmoid", "use_bias": True,
           "return_sequences": False, "return_state": False, "go_backwards": False, "stateful": False,
           "unroll": False}
    cfg.update(kw)
    return cfg


def case_masked_rnns(root):
    # Masking before LSTM, Bidirectional(SimpleRNN) and Dense -> GlobalAveragePooling1D; masked steps in the
    # middle, at the end and at the start (the converter moves the unmasked steps to the front), and a sequence
    # masked entirely (the RNNs give their initial state; Keras's average is 0 / 0 = NaN there).
    steps = np.array([[1, 1, 0, 1, 0, 0], [0, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0]], bool)
    x = rand(3, 6, 3, scale=1.0) * steps[:, :, None]
    lk, lr, lb = rand(3, 16), rand(4, 16), rand(16)
    fk, fr, fb, bk, br, bb = rand(3, 3), rand(3, 3), rand(3), rand(3, 3), rand(3, 3), rand(3)
    pk, pb = rand(3, 2), rand(2)
    zeros = lambda n: np.zeros((x.shape[0], n))
    lstm_out = run_rnn(lstm_step(lk, lr, lb, 4), x, steps, (zeros(4), zeros(4)))[0]
    fw = run_rnn(simple_rnn_step(fk, fr, fb), x, steps, (zeros(3),))[0]
    bw = run_rnn(simple_rnn_step(bk, br, bb), x, steps, (zeros(3),), go_backwards=True)[0]
    proj = x @ pk + pb
    m = steps[:, :, None].astype(np.float64)
    with np.errstate(invalid="ignore"):
        gap = (proj * m).sum(1) / m.sum(1)
    layers = [
        input_layer("seq", (6, 3)),
        layer("Masking", "pad", {"mask_value": 0.0}, [[["seq", 0, 0, {}]]]),
        layer("LSTM", "lstm", rnn_config(4), [[["pad", 0, 0, {}]]]),
        layer("Bidirectional", "bi", {"merge_mode": "concat",
                                      "layer": {"class_name": "SimpleRNN", "config": rnn_config(3, name="rnn")}},
              [[["pad", 0, 0, {}]]]),
        layer("Dense", "proj", {"units": 2, "activation": "linear", "use_bias": True}, [[["pad", 0, 0, {}]]]),
        layer("GlobalAveragePooling1D", "gap", {"data_format": "channels_last", "keepdims": False},
              [[["proj", 0, 0, {}]]]),
    ]
    weights = [("lstm/kernel", lk), ("lstm/recurrent_kernel", lr), ("lstm/bias", lb),
               ("bi/forward_rnn/kernel", fk), ("bi/forward_rnn/recurrent_kernel", fr), ("bi/forward_rnn/bias", fb),
               ("bi/backward_rnn/kernel", bk), ("bi/backward_rnn/recurrent_kernel", br),
               ("bi/backward_rnn/bias", bb), ("proj/kernel", pk), ("proj/bias", pb)]
    write_case(root, "masked_rnns", functional("masked_rnns", layers, ["seq"], ["lstm", "bi", "gap"]), weights,
               [("seq", x)], [("lstm", lstm_out), ("bi", np.concatenate([fw, bw], -1)), ("gap", gap)])


def case_masked_embedding(root):
    # Embedding(mask_zero=True) before a go_backwards GRU (reset_after) and a self-attention whose query and value
    # masks come from the embedding (fully masked query rows attend uniformly, as Keras's masked softmax does).
    ids = np.array([[3, 0, 2, 4, 0], [0, 0, 1, 5, 3]], np.int32)
    table = rand(6, 3, scale=1.0)
    gk, gr, gb = rand(3, 9), rand(3, 9), rand(2, 9)
    w, wl = mha_weights("att", 3, 3, 3, 1, 2, 2, 3, True)
    e = table[ids]
    mask = ids != 0
    gru_out = run_rnn(gru_step(gk, gr, gb, 3), e, mask, (np.zeros((2, 3)),), go_backwards=True)[0]
    att = mha(e, e, e, w, 1, 2, 2, query_mask=mask, value_mask=mask)
    cfg = {"num_heads": 1, "key_dim": 2, "value_dim": 2, "dropout": 0.0, "use_bias": True, "output_shape": None,
           "attention_axes": None}
    layers = [
        input_layer("ids", (5,), dtype="int32"),
        layer("Embedding", "emb", {"input_dim": 6, "output_dim": 3, "mask_zero": True}, [[["ids", 0, 0, {}]]]),
        layer("GRU", "gru", rnn_config(3, reset_after=True, go_backwards=True), [[["emb", 0, 0, {}]]]),
        layer("MultiHeadAttention", "att", cfg, [[["emb", 0, 0, {"value": ["emb", 0, 0]}]]]),
    ]
    weights = [("emb/embeddings", table), ("gru/kernel", gk), ("gru/recurrent_kernel", gr), ("gru/bias", gb)] + wl
    write_case(root, "masked_embedding", functional("masked_embedding", layers, ["ids"], ["gru", "att"]), weights,
               [("ids", ids)], [("gru", gru_out), ("att", att)])


def case_mha_scores(root):
    # return_attention_scores=True: the layer's second output, the softmax [B, heads, T, S].
    heads, key_dim = 2, 3
    w, wl = mha_weights("mha", 4, 4, 4, heads, key_dim, key_dim, 4, True)
    q, v = rand(2, 3, 4, scale=1.0), rand(2, 4, 4, scale=1.0)
    y, scores = mha(q, v, v, w, heads, key_dim, key_dim, return_scores=True)
    cfg = {"num_heads": heads, "key_dim": key_dim, "value_dim": key_dim, "dropout": 0.0, "use_bias": True,
           "output_shape": None, "attention_axes": None}
    layers = [input_layer("q", (3, 4)), input_layer("v", (4, 4)),
              layer("MultiHeadAttention", "mha", cfg,
                    [[["q", 0, 0, {"value": ["v", 0, 0], "return_attention_scores": True}]]])]
    model = functional("mha_scores", layers, ["q", "v"], [])
    model["config"]["output_layers"] = [["mha", 0, 0], ["mha", 0, 1]]
    write_case(root, "mha_scores", model, wl, [("q", q), ("v", v)], [("mha", y), ("mha_1", scores)])


def case_masked_stacked(root):
    # Masking -> LSTM(return_sequences=True) -> GRU: the first layer's masked steps repeat its previous output
    # (zero before the first unmasked step), and its output carries the mask on to the second.
    steps = np.array([[0, 1, 1, 0, 1], [1, 0, 0, 1, 1]], bool)
    x = rand(2, 5, 3, scale=1.0) * steps[:, :, None]
    lk, lr, lb = rand(3, 12), rand(3, 12), rand(12)
    gk, gr, gb = rand(3, 6), rand(2, 6), rand(2, 6)
    seq = run_rnn_sequence(lstm_step(lk, lr, lb, 3), x, steps, (np.zeros((2, 3)), np.zeros((2, 3))))
    last = run_rnn(gru_step(gk, gr, gb, 2), seq, steps, (np.zeros((2, 2)),))[0]
    layers = [
        input_layer("seq_in", (5, 3)),
        layer("Masking", "pad", {"mask_value": 0.0}, [[["seq_in", 0, 0, {}]]]),
        layer("LSTM", "lstm_seq", rnn_config(3, return_sequences=True), [[["pad", 0, 0, {}]]]),
        layer("GRU", "gru_last", rnn_config(2, reset_after=True), [[["lstm_seq", 0, 0, {}]]]),
    ]
    weights = [("lstm_seq/kernel", lk), ("lstm_seq/recurrent_kernel", lr), ("lstm_seq/bias", lb),
               ("gru_last/kernel", gk), ("gru_last/recurrent_kernel", gr), ("gru_last/bias", gb)]
    write_case(root, "masked_stacked", functional("masked_stacked", layers, ["seq_in"], ["lstm_seq", "gru_last"]),
               weights, [("seq_in", x)], [("lstm_seq", seq), ("gru_last", last)])


def case_masked_cross(root):
    # Two differently masked sequences: cross-attention (query mask [B, T, 1] AND value mask [B, 1, S]), and a
    # feature-axis Concatenate of a masked and an unmasked tensor (the mask passes on) feeding an LSTM.
    qa = np.array([[2, 1, 0, 0], [3, 3, 1, 0]], np.int32)
    vb = np.array([[0, 4, 1, 2, 0], [1, 0, 0, 2, 3]], np.int32)
    ta, tb = rand(4, 3, scale=1.0), rand(5, 3, scale=1.0)
    w, wl = mha_weights("cross_att", 3, 3, 3, 2, 2, 2, 3, True)
    qe, ve = ta[qa], tb[vb]
    qm, vm = qa != 0, vb != 0
    att = mha(qe, ve, ve, w, 2, 2, 2, query_mask=qm, value_mask=vm)
    dk, db = rand(3, 2), rand(2)
    lk, lr, lb = rand(5, 8), rand(2, 8), rand(8)
    cat = np.concatenate([qe, qe @ dk + db], -1)
    last = run_rnn(lstm_step(lk, lr, lb, 2), cat, qm, (np.zeros((2, 2)), np.zeros((2, 2))))[0]
    cfg = {"num_heads": 2, "key_dim": 2, "value_dim": 2, "dropout": 0.0, "use_bias": True, "output_shape": None,
           "attention_axes": None}
    layers = [
        input_layer("qa", (4,), dtype="int32"), input_layer("vb", (5,), dtype="int32"),
        layer("Embedding", "emb_a", {"input_dim": 4, "output_dim": 3, "mask_zero": True}, [[["qa", 0, 0, {}]]]),
        layer("Embedding", "emb_b", {"input_dim": 5, "output_dim": 3, "mask_zero": True}, [[["vb", 0, 0, {}]]]),
        layer("MultiHeadAttention", "cross_att", cfg, [[["emb_a", 0, 0, {"value": ["emb_b", 0, 0]}]]]),
        layer("Dense", "dense_a", {"units": 2, "activation": "linear", "use_bias": True}, [[["emb_a", 0, 0, {}]]]),
        layer("Concatenate", "cat", {"axis": -1}, [[["emb_a", 0, 0, {}], ["dense_a", 0, 0, {}]]]),
        layer("LSTM", "lstm_cat", rnn_config(2), [[["cat", 0, 0, {}]]]),
    ]
    weights = [("emb_a/embeddings", ta), ("emb_b/embeddings", tb)] + wl + [
        ("dense_a/kernel", dk), ("dense_a/bias", db), ("lstm_cat/kernel", lk), ("lstm_cat/recurrent_kernel", lr),
        ("lstm_cat/bias", lb)]
    write_case(root, "masked_cross", functional("masked_cross", layers, ["qa", "vb"], ["cross_att", "lstm_cat"]),
               weights, [("qa", qa), ("vb", vb)], [("cross_att", att), ("lstm_cat", last)])


def main():
    root = sys.argv[1]
    for case in (case_mha_self_mask, case_mha_cross_causal, case_gru_reset_after, case_layers1d, case_layers3d,
                 case_keras3_activations, case_masked_rnns, case_masked_embedding, case_mha_scores,
                 case_masked_stacked, case_masked_cross):
        case(root)


if __name__ == "__main__":
    main()
