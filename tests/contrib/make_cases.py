#!/usr/bin/python3
"""Writes the com.microsoft operator test cases: tests/data/contrib/<case>/model.onnx (one node, built with onnx
1.12's helper) and test_data_set_0/input_N.pb (random inputs), plus inputs.json for ort_outputs.mjs, which runs
each model in ONNX Runtime 1.30 and writes the reference outputs (then finish_cases.py turns them into
output_N.pb). Run with Debian's python (/usr/bin/python3): see tests/contrib/README.md."""
import base64
import json
import os
import shutil
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data', 'contrib')
rng = np.random.default_rng(20261202)
NP_TO_ONNX = {np.float32: TensorProto.FLOAT, np.int32: TensorProto.INT32, np.int64: TensorProto.INT64,
              np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8}


def f32(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def case(name, op, inputs, outputs, domain='com.microsoft', initializers=None, **attrs):
    """inputs: list of (name, array or None for an omitted optional input); outputs: names ('' to skip)."""
    d = os.path.join(ROOT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, 'test_data_set_0'))
    initializers = initializers or {}
    node_inputs = [n if a is not None or n in initializers else '' for n, a in inputs]
    node = helper.make_node(op, node_inputs, outputs, domain=domain, **attrs)
    graph_inputs, feeds = [], []
    for n, a in inputs:
        if a is None:
            continue
        graph_inputs.append(helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype.type], list(a.shape)))
        feeds.append((n, a))
    inits = [numpy_helper.from_array(a, n) for n, a in initializers.items()]
    graph_outputs = [helper.make_tensor_value_info(o, TensorProto.INT32 if o == 'mask_index' else TensorProto.FLOAT,
                                                   None) for o in outputs if o]
    graph = helper.make_graph([node], name, graph_inputs, graph_outputs, inits)
    opsets = [helper.make_opsetid('', 17), helper.make_opsetid('com.microsoft', 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name='onyx tests/contrib/make_cases.py')
    model.ir_version = 8
    save(model, os.path.join(d, 'model.onnx'))
    meta = []
    for i, (n, a) in enumerate(feeds):
        t = numpy_helper.from_array(a, n)
        with open(os.path.join(d, 'test_data_set_0', f'input_{i}.pb'), 'wb') as f:
            f.write(t.SerializeToString())
        meta.append({'name': n, 'dtype': str(a.dtype), 'dims': list(a.shape),
                     'data': base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()})
    with open(os.path.join(d, 'inputs.json'), 'w') as f:
        json.dump({'inputs': meta, 'outputs': [o for o in outputs if o]}, f)


def activations():
    case('fast_gelu_bias', 'FastGelu', [('X', f32(2, 3, 16, scale=2)), ('bias', f32(16))], ['Y'])
    case('fast_gelu_nobias', 'FastGelu', [('X', f32(4, 33, scale=3))], ['Y'])
    case('fast_gelu_3d_wide', 'FastGelu', [('X', f32(1, 5, 130, scale=2)), ('bias', f32(130))], ['Y'])
    case('bias_gelu_3d', 'BiasGelu', [('A', f32(2, 4, 24, scale=2)), ('B', f32(24))], ['C'])
    case('bias_gelu_2d', 'BiasGelu', [('A', f32(7, 9, scale=3)), ('B', f32(9))], ['C'])
    case('bias_gelu_wide', 'BiasGelu', [('A', f32(3, 257, scale=2)), ('B', f32(257))], ['C'])
    case('quick_gelu_default', 'QuickGelu', [('X', f32(3, 4, 10, scale=3))], ['Y'])
    case('quick_gelu_alpha1', 'QuickGelu', [('X', f32(5, 17, scale=3))], ['Y'], alpha=1.0)
    case('quick_gelu_alpha_neg', 'QuickGelu', [('X', f32(2, 40, scale=3))], ['Y'], alpha=-0.5)
    case('gelu_ms', 'Gelu', [('X', f32(2, 3, 50, scale=3))], ['Y'])
    case('gelu_ms_2d', 'Gelu', [('X', f32(9, 7, scale=4))], ['Y'])
    case('gelu_ms_1d', 'Gelu', [('X', f32(100, scale=4))], ['Y'])


def norms():
    x, s = f32(2, 5, 32), f32(2, 5, 32)
    case('skip_ln_full', 'SkipLayerNormalization',
         [('input', x), ('skip', s), ('gamma', f32(32)), ('beta', f32(32)), ('bias', f32(32))],
         ['output', '', '', 'sum'], epsilon=1e-5)
    case('skip_ln_nobeta', 'SkipLayerNormalization', [('input', f32(3, 4, 24)), ('skip', f32(3, 4, 24)),
                                                      ('gamma', f32(24))], ['output'])
    case('skip_ln_broadcast_skip', 'SkipLayerNormalization',
         [('input', f32(3, 4, 16)), ('skip', f32(1, 4, 16)), ('gamma', f32(16)), ('beta', f32(16))], ['output'],
         epsilon=1e-6)
    case('skip_ln_2d', 'SkipLayerNormalization',
         [('input', f32(6, 40)), ('skip', f32(6, 40)), ('gamma', f32(40)), ('beta', f32(40))], ['output'])
    case('skip_sln_bias_sum', 'SkipSimplifiedLayerNormalization',
         [('input', f32(2, 3, 32)), ('skip', f32(2, 3, 32)), ('gamma', f32(32)), ('bias', f32(32))],
         ['output', '', '', 'sum'], epsilon=1e-5)
    case('skip_sln_plain', 'SkipSimplifiedLayerNormalization',
         [('input', f32(4, 2, 20)), ('skip', f32(4, 2, 20)), ('gamma', f32(20))], ['output'])
    case('skip_sln_2d', 'SkipSimplifiedLayerNormalization',
         [('input', f32(5, 64)), ('skip', f32(5, 64)), ('gamma', f32(64))], ['output'], epsilon=1e-6)
    case('simplified_ln_last', 'SimplifiedLayerNormalization', [('X', f32(2, 3, 16)), ('scale', f32(16))], ['Y'],
         domain='', epsilon=1e-5)
    case('simplified_ln_invstd', 'SimplifiedLayerNormalization', [('X', f32(4, 30)), ('scale', f32(30))],
         ['Y', 'inv_std_var'], domain='', epsilon=1e-6)
    case('simplified_ln_axis1', 'SimplifiedLayerNormalization', [('X', f32(2, 3, 8)), ('scale', f32(3, 8))], ['Y'],
         domain='', axis=1)
    vocab, pos_n, h = 30, 16, 32
    ids = rng.integers(0, vocab, (2, 7)).astype(np.int32)
    seg = rng.integers(0, 2, (2, 7)).astype(np.int32)
    mask = np.array([[1] * 7, [1] * 4 + [0] * 3], np.int32)
    case('embed_ln_full', 'EmbedLayerNormalization',
         [('input_ids', ids), ('segment_ids', seg), ('word_embedding', f32(vocab, h)),
          ('position_embedding', f32(pos_n, h)), ('segment_embedding', f32(2, h)), ('gamma', f32(h)),
          ('beta', f32(h)), ('mask', mask)], ['output', 'mask_index'], epsilon=1e-12)
    case('embed_ln_noseg', 'EmbedLayerNormalization',
         [('input_ids', ids), ('segment_ids', None), ('word_embedding', f32(vocab, h)),
          ('position_embedding', f32(pos_n, h)), ('segment_embedding', None), ('gamma', f32(h)),
          ('beta', f32(h)), ('mask', mask)], ['output', 'mask_index'], epsilon=1e-5)
    case('embed_ln_sum', 'EmbedLayerNormalization',
         [('input_ids', ids), ('segment_ids', seg), ('word_embedding', f32(vocab, h)),
          ('position_embedding', f32(pos_n, h)), ('segment_embedding', f32(2, h)), ('gamma', f32(h)),
          ('beta', f32(h))], ['output', '', 'embedding_sum'], epsilon=1e-12)


def attention():
    b, s, din, n, hs = 2, 5, 24, 3, 8
    w, bias = f32(din, 3 * n * hs, scale=0.3), f32(3 * n * hs)
    x = f32(b, s, din)
    case('attention_nomask', 'Attention', [('input', x), ('weights', w), ('bias', bias)], ['output'], num_heads=n)
    case('attention_mask_1d', 'Attention',
         [('input', x), ('weights', w), ('bias', bias), ('mask_index', np.array([5, 3], np.int32))], ['output'],
         num_heads=n)
    case('attention_mask_2b', 'Attention',
         [('input', x), ('weights', w), ('bias', bias), ('mask_index', np.array([4, 5, 1, 0], np.int32))],
         ['output'], num_heads=n)
    m2 = np.array([[1, 1, 0, 1, 1], [1, 1, 1, 0, 0]], np.int32)
    case('attention_mask_2d', 'Attention', [('input', x), ('weights', w), ('bias', bias), ('mask_index', m2)],
         ['output'], num_heads=n)
    m3 = rng.integers(0, 2, (b, s, s)).astype(np.int32)
    m3[:, :, 0] = 1
    case('attention_mask_3d', 'Attention', [('input', x), ('weights', w), ('bias', bias), ('mask_index', m3)],
         ['output'], num_heads=n)
    case('attention_unidirectional', 'Attention', [('input', x), ('weights', w), ('bias', bias)],
         ['output', 'present'], num_heads=n, unidirectional=1)
    past = f32(2, b, n, 4, hs)
    case('attention_past_decode', 'Attention',
         [('input', f32(b, 1, din)), ('weights', w), ('bias', bias),
          ('mask_index', np.array([[1] * 5, [0, 1, 1, 1, 1]], np.int32)), ('past', past)], ['output', 'present'],
         num_heads=n, unidirectional=1)
    case('attention_past_prompt', 'Attention',
         [('input', f32(b, 3, din)), ('weights', w), ('bias', bias), ('mask_index', None), ('past', past)],
         ['output', 'present'], num_heads=n, unidirectional=1)
    wv = f32(din, 2 * n * hs + n * 4, scale=0.3)
    case('attention_qkv_sizes_scale', 'Attention',
         [('input', x), ('weights', wv), ('bias', f32(2 * n * hs + n * 4))], ['output'], num_heads=n,
         qkv_hidden_sizes=[n * hs, n * hs, n * 4], scale=0.2)
    case('attention_bias_input', 'Attention',
         [('input', x), ('weights', w), ('bias', bias), ('mask_index', m2), ('past', None),
          ('attention_bias', f32(1, n, s, s))], ['output'], num_heads=n, mask_filter_value=-1000.0)


def qattention():
    """QAttention as ONNX Runtime's quantize_dynamic writes it (uint8 input, int8 or uint8 weights as initializers)."""
    b, s, din, n, hs = 2, 5, 24, 3, 8
    width = 3 * n * hs
    x = rng.integers(0, 256, (b, s, din)).astype(np.uint8)
    w8 = rng.integers(-127, 128, (din, width)).astype(np.int8)
    wu = rng.integers(0, 256, (din, width)).astype(np.uint8)
    bias = f32(width)
    xs, xz = np.array(0.02, np.float32), np.array(118, np.uint8)

    def q(name, w, ws, wz, extra=(), outputs=('output',), x_in=x, **attrs):
        inputs = [('input', x_in), ('weight', None), ('bias', bias), ('input_scale', None), ('weight_scale', None)]
        inputs += list(extra) or [('mask_index', None)]
        inputs += [('input_zero_point', None), ('weight_zero_point', None)]
        inits = {'weight': w, 'input_scale': xs, 'weight_scale': ws, 'input_zero_point': xz, 'weight_zero_point': wz}
        if len(extra) > 1:  # mask and past: past after the zero points
            inputs = inputs[:5] + [extra[0], ('input_zero_point', None), ('weight_zero_point', None), extra[1]]
        case(name, 'QAttention', inputs, list(outputs), initializers=inits, num_heads=n, **attrs)

    q('qattention_s8', w8, np.array(0.003, np.float32), np.array(0, np.int8))
    q('qattention_u8_mask_1d', wu, np.array(0.004, np.float32), np.array(128, np.uint8),
      extra=[('mask_index', np.array([5, 3], np.int32))])
    q('qattention_s8_per_column', w8, rng.uniform(0.001, 0.006, width).astype(np.float32),
      rng.integers(-3, 4, width).astype(np.int8), extra=[('mask_index', np.array([[1, 1, 0, 1, 1], [1, 1, 1, 0, 0]],
                                                                                  np.int32))])
    q('qattention_past_unidirectional', w8, np.array(0.003, np.float32), np.array(0, np.int8),
      extra=[('mask_index', None), ('past', f32(2, b, n, 4, hs))], outputs=('output', 'present'),
      x_in=rng.integers(0, 256, (b, 1, din)).astype(np.uint8), unidirectional=1)


def qembed():
    """QEmbedLayerNormalization as ONNX Runtime's quantize_dynamic writes it: 8-bit tables as initializers."""
    b, s, hidden, vocab = 2, 7, 32, 50

    def tables(dtype, lo, hi):
        def t(*shape):
            return rng.integers(lo, hi, shape).astype(dtype)
        zp = (lambda: np.array(rng.integers(lo, hi), dtype))
        sc = (lambda: np.array(rng.uniform(0.002, 0.02), np.float32))
        return {'word_embedding': t(vocab, hidden), 'position_embedding': t(16, hidden),
                'segment_embedding': t(2, hidden), 'gamma': t(hidden), 'beta': t(hidden),
                'word_embedding_scale': sc(), 'position_embedding_scale': sc(), 'segment_embedding_scale': sc(),
                'gamma_scale': sc(), 'beta_scale': sc(), 'word_embedding_zero_point': zp(),
                'position_embedding_zero_point': zp(), 'segment_embedding_zero_point': zp(),
                'gamma_zero_point': zp(), 'beta_zero_point': zp()}

    ids = rng.integers(0, vocab, (b, s)).astype(np.int32)
    seg = rng.integers(0, 2, (b, s)).astype(np.int32)
    mask = np.array([[1] * 7, [1] * 4 + [0] * 3], np.int32)
    order = ['word_embedding', 'position_embedding', 'segment_embedding', 'gamma', 'beta']
    for name, (dtype, lo, hi), with_seg in [('qembed_ln_u8', (np.uint8, 0, 256), True),
                                            ('qembed_ln_s8_noseg', (np.int8, -128, 128), False)]:
        inits = tables(dtype, lo, hi)
        if not with_seg:
            for k in ('segment_embedding', 'segment_embedding_scale', 'segment_embedding_zero_point'):
                del inits[k]
        inputs = [('input_ids', ids), ('segment_ids', seg if with_seg else None)]
        inputs += [(k, None) for k in order] + [('mask', mask)]
        inputs += [(k + '_scale', None) for k in order] + [(k + '_zero_point', None) for k in order]
        case(name, 'QEmbedLayerNormalization', inputs, ['output', 'mask_index'], initializers=inits, epsilon=1e-5)


def dq_lstm():
    """DynamicQuantizeLSTM as ONNX Runtime's quantize_dynamic writes it: W [D, I, 4H] and R [D, H, 4H] in 8 bits as
    initializers with per-direction or per-column scales."""
    s, b, i, h = 5, 2, 6, 4

    def weights(d, dtype, per_column):
        lo, hi = (-127, 128) if dtype == np.int8 else (0, 256)
        w = rng.integers(lo, hi, (d, i, 4 * h)).astype(dtype)
        r = rng.integers(lo, hi, (d, h, 4 * h)).astype(dtype)
        shape = (d, 4 * h) if per_column else (d,)
        zp = 0 if dtype == np.int8 else 128
        return {'W': w, 'R': r, 'W_scale': rng.uniform(0.002, 0.01, shape).astype(np.float32),
                'W_zero_point': np.full(shape, zp, dtype), 'R_scale': rng.uniform(0.002, 0.01, shape).astype(np.float32),
                'R_zero_point': np.full(shape, zp, dtype)}

    names = ['X', 'W', 'R', 'B', 'sequence_lens', 'initial_h', 'initial_c', 'P', 'W_scale', 'W_zero_point', 'R_scale',
             'R_zero_point']
    for name, d, dtype, per_column, direction in [('dq_lstm_s8', 1, np.int8, False, 'forward'),
                                                  ('dq_lstm_u8_bidir_per_column', 2, np.uint8, True,
                                                   'bidirectional')]:
        inits = weights(d, dtype, per_column)
        feeds = {'X': f32(s, b, i), 'B': f32(d, 8 * h, scale=0.1), 'initial_h': f32(d, b, h, scale=0.5),
                 'initial_c': f32(d, b, h, scale=0.5)}
        case(name, 'DynamicQuantizeLSTM', [(n, feeds.get(n)) for n in names], ['Y', 'Y_h', 'Y_c'],
             initializers=inits, hidden_size=h, direction=direction)


def mha():
    b, s, l, n, hs = 2, 4, 6, 2, 8
    d = n * hs
    q, k, v = f32(b, s, d), f32(b, l, d), f32(b, l, d)
    case('mha_separate', 'MultiHeadAttention', [('query', q), ('key', k), ('value', v)], ['output'], num_heads=n)
    case('mha_bias_padmask', 'MultiHeadAttention',
         [('query', q), ('key', k), ('value', v), ('bias', f32(3 * d)),
          ('key_padding_mask', np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]], np.int32))], ['output'],
         num_heads=n)
    case('mha_scale', 'MultiHeadAttention', [('query', q), ('key', k), ('value', f32(b, l, 3 * n))], ['output'],
         num_heads=n, scale=0.3)
    case('mha_cross_bnsh', 'MultiHeadAttention', [('query', q), ('key', f32(b, n, l, hs)), ('value', f32(b, n, l, hs))],
         ['output'], num_heads=n)
    case('mha_past_causal', 'MultiHeadAttention',
         [('query', q), ('key', f32(b, s, d)), ('value', f32(b, s, d)), ('bias', f32(3 * d)),
          ('key_padding_mask', None), ('attention_bias', None), ('past_key', f32(b, n, 3, hs)),
          ('past_value', f32(b, n, 3, hs))], ['output', 'present_key', 'present_value'], num_heads=n,
         unidirectional=1)
    case('mha_attention_bias', 'MultiHeadAttention',
         [('query', q), ('key', k), ('value', v), ('bias', None), ('key_padding_mask', None),
          ('attention_bias', f32(b, 1, s, l))], ['output'], num_heads=n)


def gqa():
    def run(name, s, past, extra=None, packed=False, b=2, n=4, kvn=2, hs=8, **attrs):
        total = past + s
        inputs = []
        if packed:
            inputs += [('query', f32(b, s, (n + 2 * kvn) * hs)), ('key', None), ('value', None)]
        else:
            inputs += [('query', f32(b, s, n * hs)), ('key', f32(b, s, kvn * hs)), ('value', f32(b, s, kvn * hs))]
        inputs += [('past_key', f32(b, kvn, past, hs) if past else None),
                   ('past_value', f32(b, kvn, past, hs) if past else None),
                   ('seqlens_k', np.full((b,), total - 1, np.int32)),
                   ('total_sequence_length', np.array([total], np.int32))]
        inputs += extra or []
        case(name, 'GroupQueryAttention', inputs, ['output', 'present_key', 'present_value'], num_heads=n,
             kv_num_heads=kvn, **attrs)
    run('gqa_prompt', 5, 0)
    run('gqa_decode_past', 1, 6)
    run('gqa_extend_past', 3, 4, b=1, scale=0.25)
    half = 8
    cos = np.cos(np.arange(16)[:, None] * 0.3 / (1 + np.arange(half)[None, :])).astype(np.float32)
    sin = np.sin(np.arange(16)[:, None] * 0.3 / (1 + np.arange(half)[None, :])).astype(np.float32)
    run('gqa_rotary', 1, 5, extra=[('cos_cache', cos), ('sin_cache', sin)], hs=16, do_rotary=1)
    run('gqa_rotary_interleaved_packed', 4, 0, extra=[('cos_cache', cos), ('sin_cache', sin)], packed=True, hs=16,
        do_rotary=1, rotary_interleaved=1)
    run('gqa_local_window', 6, 0, local_window_size=3)
    run('gqa_softcap', 3, 2, b=1, n=6, kvn=3, softcap=2.0)


def rotary():
    half = 4
    cos = np.cos(np.arange(20)[:, None] * 0.21 / (1 + np.arange(half)[None, :])).astype(np.float32)
    sin = np.sin(np.arange(20)[:, None] * 0.21 / (1 + np.arange(half)[None, :])).astype(np.float32)
    pos = rng.integers(0, 20, (2, 3)).astype(np.int64)
    case('rotary_3d', 'RotaryEmbedding', [('input', f32(2, 3, 16)), ('position_ids', pos), ('cos_cache', cos),
                                          ('sin_cache', sin)], ['output'])
    case('rotary_4d_interleaved', 'RotaryEmbedding',
         [('input', f32(2, 2, 3, 8)), ('position_ids', pos), ('cos_cache', cos), ('sin_cache', sin)], ['output'],
         interleaved=1)
    case('rotary_offset', 'RotaryEmbedding',
         [('input', f32(1, 5, 16)), ('position_ids', np.array([7], np.int64)), ('cos_cache', cos),
          ('sin_cache', sin)], ['output'])
    case('rotary_partial_heads', 'RotaryEmbedding',
         [('input', f32(2, 3, 32)), ('position_ids', pos), ('cos_cache', cos), ('sin_cache', sin)], ['output'],
         num_heads=2, rotary_embedding_dim=8)


def pack_rows(values, bits):
    """Each row of `values` (< 2^bits) packed low bits first: MatMulNBits' B as (rows, bytes)."""
    per = 8 // bits
    packed = np.zeros((values.shape[0], values.shape[1] // per), np.uint8)
    for i in range(per):
        packed |= (values[:, i::per] << (bits * i)).astype(np.uint8)
    return packed


def pack_zero_points(zq, bits):
    """MatMulNBits' uint8 zero points: each row's blocks packed on whole bytes of its own, flattened."""
    rows, blocks = zq.shape
    per = 8 // bits
    padded = np.zeros((rows, (blocks * bits + 7) // 8 * per), np.int64)
    padded[:, :blocks] = zq
    return pack_rows(padded, bits).reshape(-1)


def nbits():
    def make(name, n, k, block, bits=4, zp=None, bias=False, g_idx=False, m=3):
        blocks = (k + block - 1) // block
        blob = block * bits // 8
        q = rng.integers(0, 2 ** bits, (n, blocks * block))
        packed = pack_rows(q, bits)
        inputs = [('A', f32(m, k)), ('B', packed.reshape(n, blocks, blob)),
                  ('scales', (rng.random(n * blocks) * 0.1 + 0.01).astype(np.float32))]
        if zp == 'u8':
            inputs.append(('zero_points', pack_zero_points(rng.integers(0, 2 ** bits, (n, blocks)), bits)))
        elif zp == 'f32':
            inputs.append(('zero_points', (rng.random(n * blocks) * 2 ** bits).astype(np.float32)))
        else:
            inputs.append(('zero_points', None))
        # g_idx repeating every 8 positions: where ORT's reading (the index of the position within each 8-value
        # chunk) and the documented one (the index of k) agree.
        period = np.tile(rng.integers(0, blocks, 8), k // 8)
        inputs.append(('g_idx', period.astype(np.int32) if g_idx else None))
        inputs.append(('bias', f32(n) if bias else None))
        while inputs[-1][1] is None:
            inputs.pop()
        case(name, 'MatMulNBits', inputs, ['Y'], K=k, N=n, bits=bits, block_size=block)
    make('nbits4_plain', 24, 64, 32)
    make('nbits4_zp_bias', 20, 48, 16, zp='u8', bias=True)
    make('nbits4_k_tail', 10, 40, 16, zp='u8', m=1)
    make('nbits8_zp', 9, 64, 32, bits=8, zp='u8')
    make('nbits4_float_zp', 8, 32, 16, zp='f32')
    make('nbits4_gidx', 12, 64, 16, g_idx=True)
    make('nbits4_gidx_float_zp', 10, 64, 32, zp='f32', g_idx=True, bias=True)


def nbits_const():
    """MatMulNBits with B, scales and zero points as initializers: onyx keeps B quantized and widens it in registers
    (kernels/blockwise_matmul.h) where the other cases dequantize it. A generator of its own, so that the cases
    above keep their data."""
    gen = np.random.default_rng(20261203)

    def make(name, n, k, block, bits=4, zp=None, bias=False, m=3):
        blocks = (k + block - 1) // block
        blob = block * bits // 8
        q = gen.integers(0, 2 ** bits, (n, blocks * block))
        packed = pack_rows(q, bits)
        inits = {'B': packed.reshape(n, blocks, blob),
                 'scales': (gen.random(n * blocks) * 0.1 + 0.01).astype(np.float32)}
        if zp == 'u8':
            inits['zero_points'] = pack_zero_points(gen.integers(0, 2 ** bits, (n, blocks)), bits)
        elif zp == 'f32':
            inits['zero_points'] = (gen.random(n * blocks) * 2 ** bits).astype(np.float32)
        a = ((gen.random((m, k)) * 2 - 1)).astype(np.float32)
        inputs = [('A', a), ('B', None), ('scales', None), ('zero_points', None)]
        if bias:
            inputs += [('g_idx', None), ('bias', ((gen.random(n) * 2 - 1)).astype(np.float32))]
        while inputs[-1][1] is None and inputs[-1][0] not in inits:
            inputs.pop()
        case(name, 'MatMulNBits', inputs, ['Y'], initializers=inits, K=k, N=n, bits=bits, block_size=block)
    make('nbits4_const_plain', 24, 64, 32)
    make('nbits4_const_zp_bias_row', 21, 48, 16, zp='u8', bias=True, m=1)
    make('nbits4_const_k_tail', 10, 40, 16, zp='u8', m=2)
    make('nbits8_const_zp', 9, 64, 32, bits=8, zp='u8', m=4)
    make('nbits8_const_default_zp_row', 17, 96, 32, bits=8, m=1)
    make('nbits4_const_float_zp_block128', 33, 300, 128, zp='f32', m=5)


def fused_matmul():
    case('fused_matmul_transb', 'FusedMatMul', [('A', f32(5, 12)), ('B', f32(7, 12))], ['Y'], transB=1)
    case('fused_matmul_transa_alpha', 'FusedMatMul', [('A', f32(3, 12, 5)), ('B', f32(3, 12, 6))], ['Y'],
         transA=1, alpha=0.125)
    case('fused_matmul_broadcast', 'FusedMatMul', [('A', f32(2, 1, 4, 8)), ('B', f32(3, 8, 5))], ['Y'], alpha=2.0)
    case('fused_matmul_transbatch_a', 'FusedMatMul', [('A', f32(4, 2, 3, 8)), ('B', f32(2, 3, 8, 5))], ['Y'],
         transBatchA=1)
    case('fused_matmul_transbatch_both_trans', 'FusedMatMul', [('A', f32(8, 6, 4)), ('B', f32(5, 6, 8))], ['Y'],
         transBatchA=1, transBatchB=1, transA=1, transB=1, alpha=0.5)
    case('fused_matmul_both', 'FusedMatMul', [('A', f32(2, 3, 9, 4)), ('B', f32(1, 3, 6, 9))], ['Y'], transA=1,
         transB=1, alpha=-0.5)


if __name__ == '__main__':
    groups = sys.argv[1:] or ['activations', 'norms', 'attention', 'qattention', 'qembed', 'dq_lstm', 'mha', 'gqa', 'rotary', 'nbits',
                                 'nbits_const', 'fused_matmul']
    for g in groups:
        globals()[g]()
