#!/usr/bin/python3
"""Sets onyx's time per node beside ONNX Runtime's, node by node, for one model.

    build/bin/onyx bench MODEL --threads 1 --runs 200 --profile-nodes > onyx.txt
    NODE_PATH=~/.cache/onyx-bench/ort/node_modules node bench/ort_profile.js MODEL 1 200 20 > ort.txt
    /usr/bin/python3 bench/profile_join.py MODEL onyx.txt ort.txt [--top N]

Both engines rename the nodes they fuse: onyx joins the fused nodes' names with '+', ONNX Runtime names a
layout-transformed node after its output (`<output>_nchwc`) and appends `_token_N` to others. Each name is mapped back
to the original model's node that holds it (by node name, or by the output it produces, a Relu/Clip/Add output to the
node whose value it finishes), and the times are summed per original node: the rows, largest onyx - ORT difference
first, show where onyx loses. Names that map to nothing are summed as "unmatched".
"""
import argparse
import re
import sys

import onnx


def original_names(model_path):
    """Node name -> itself, output name -> producing node's name, with activation outputs mapped to their producer."""
    graph = onnx.load(model_path, load_external_data=False).graph
    producer = {}
    by_name = {}
    for node in graph.node:
        by_name[node.name] = node
        for out in node.output:
            producer[out] = node
    folded = {'Relu', 'Clip', 'LeakyRelu', 'Sigmoid', 'HardSigmoid', 'HardSwish', 'Add', 'Sum', 'QuantizeLinear',
              'DequantizeLinear'}

    def owner(node):
        # An activation (or residual add) is fused into the node computing its first input.
        for _ in range(4):
            if node.op_type not in folded:
                break
            computed = [i for i in node.input if i in producer]  # a bias or scale initializer has no producer
            if not computed:
                break
            node = producer[computed[0]]
        return node.name

    names = {name: owner(node) for name, node in by_name.items()}
    outputs = {out: owner(node) for out, node in producer.items()}
    return names, outputs


def parse(path, names, outputs, ort):
    times = {}
    pattern = re.compile(r'^(\S+)\s+\((\S+)\)\s+([\d.]+)')
    for line in open(path):
        m = pattern.match(line)
        if not m:
            continue
        raw = re.sub(r'_token_\d+$', '', m.group(1))
        t = float(m.group(3))
        key = None
        for part in raw.split('+') if not ort else [raw]:
            cand = re.sub(r'_nchwc$', '', part)
            cand = re.sub(r'::.*$', '', cand)
            # ONNX Runtime names some fused nodes after the first one's name plus a suffix
            # ("/layers.0/linear1/MatMul/MatMulAddFusion"): drop trailing segments until a name matches.
            while cand and not key:
                key = names.get(cand) or outputs.get(cand)
                cand = cand.rsplit('/', 1)[0] if '/' in cand.strip('/') else ''
            if key:
                break
        key = key or 'unmatched'
        times[key] = times.get(key, 0.0) + t
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('model')
    ap.add_argument('onyx_profile')
    ap.add_argument('ort_profile')
    ap.add_argument('--top', type=int, default=30)
    args = ap.parse_args()
    names, outputs = original_names(args.model)
    onyx = parse(args.onyx_profile, names, outputs, ort=False)
    ort = parse(args.ort_profile, names, outputs, ort=True)
    print('onyx %.3f ms, ORT %.3f ms (sums of node times per run)' % (sum(onyx.values()), sum(ort.values())))
    rows = sorted(set(onyx) | set(ort), key=lambda k: onyx.get(k, 0) - ort.get(k, 0), reverse=True)
    print('%8s %8s %8s  node' % ('onyx', 'ORT', 'diff'))
    for k in rows[:args.top]:
        print('%8.3f %8.3f %+8.3f  %s' % (onyx.get(k, 0), ort.get(k, 0), onyx.get(k, 0) - ort.get(k, 0), k))
    return 0


if __name__ == '__main__':
    sys.exit(main())
