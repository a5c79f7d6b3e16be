#!/usr/bin/python3
"""Writes a weight-only quantized copy of a decoder: every MatMul of a constant float matrix B [K, N] becomes a
com.microsoft MatMulNBits (the form ONNX Runtime's and Optimum's int4 exports use), B quantized per output column in
blocks of --block values along K, asymmetric (uint8 zero points packed in --bits bits), scale = (max - min) / (2^bits
- 1). Then bench/decoder/decode_compare.py --model OUT compares onyx and ONNX Runtime on it.

    /usr/bin/python3 bench/decoder/make_nbits.py ~/.cache/onyx-bench/models/gpt2_like_dec6.onnx /tmp/dec6_int4.onnx
"""
import argparse

import numpy as np
import onnx
from onnx import helper, numpy_helper


def quantize(b, bits, block):
    """b: [K, N] float. Returns (packed [N, blocks, blob] uint8, scales [N * blocks], zero points packed uint8)."""
    k, n = b.shape
    blocks = (k + block - 1) // block
    levels = (1 << bits) - 1
    w = np.zeros((n, blocks * block), np.float32)
    w[:, :k] = b.T
    w = w.reshape(n, blocks, block)
    lo = np.minimum(w.min(axis=2), 0.0)
    hi = np.maximum(w.max(axis=2), 0.0)
    scale = np.where(hi > lo, (hi - lo) / levels, 1.0).astype(np.float32)
    zero = np.clip(np.round(-lo / scale), 0, levels).astype(np.int64)
    q = np.clip(np.round(w / scale[:, :, None]) + zero[:, :, None], 0, levels).astype(np.int64)
    per = 8 // bits
    flat = q.reshape(n, blocks * block)
    packed = np.zeros((n, blocks * block // per), np.uint8)
    for i in range(per):
        packed |= (flat[:, i::per] << (bits * i)).astype(np.uint8)
    zrow = (blocks * bits + 7) // 8
    zpad = np.zeros((n, zrow * per), np.int64)
    zpad[:, :blocks] = zero
    zpacked = np.zeros((n, zrow), np.uint8)
    for i in range(per):
        zpacked |= (zpad[:, i::per] << (bits * i)).astype(np.uint8)
    return packed.reshape(n, blocks, block * bits // 8), scale.reshape(-1), zpacked.reshape(-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('model')
    ap.add_argument('out')
    ap.add_argument('--bits', type=int, default=4, choices=(4, 8))
    ap.add_argument('--block', type=int, default=32)
    a = ap.parse_args()
    m = onnx.load(a.model)
    inits = {t.name: t for t in m.graph.initializer}
    nodes, replaced, used = [], 0, set()
    for node in m.graph.node:
        b = inits.get(node.input[1]) if node.op_type == 'MatMul' and len(node.input) == 2 else None
        if b is None or len(b.dims) != 2 or b.data_type != onnx.TensorProto.FLOAT:
            nodes.append(node)
            continue
        w = numpy_helper.to_array(b)
        packed, scales, zeros = quantize(w, a.bits, a.block)
        base = node.output[0]
        names = [base + '_q', base + '_scales', base + '_zp']
        m.graph.initializer.extend([numpy_helper.from_array(packed, names[0]), numpy_helper.from_array(scales, names[1]),
                                    numpy_helper.from_array(zeros, names[2])])
        nodes.append(helper.make_node('MatMulNBits', [node.input[0]] + names, list(node.output), name=node.name,
                                      domain='com.microsoft', K=w.shape[0], N=w.shape[1], bits=a.bits,
                                      block_size=a.block))
        used.add(node.input[1])
        replaced += 1
    still = {i for n in nodes for i in n.input}
    kept = [t for t in m.graph.initializer if t.name not in used or t.name in still]
    del m.graph.initializer[:]
    m.graph.initializer.extend(kept)
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    if not any(o.domain == 'com.microsoft' for o in m.opset_import):
        m.opset_import.append(helper.make_opsetid('com.microsoft', 1))
    onnx.save(m, a.out)
    print(f'{replaced} MatMuls -> MatMulNBits ({a.bits} bits, blocks of {a.block}) in {a.out}')


if __name__ == '__main__':
    main()
