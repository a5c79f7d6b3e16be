#!/usr/bin/python3
"""Prompts of changing length, onyx against ONNX Runtime, on the KV-cache decoder of export_gpt2.py (or a quantized
copy: `onyx quantize MODEL -o OUT --mode dynamic`): 80 prompts of pseudo-random length (8-200 tokens, the same
sequence for both engines; --length L for one length throughout), each run once with an empty past, three passes
over them. Each engine runs in its own process (onyx: the Python module, this script's --worker mode; ORT:
ort_prompts.mjs), alternating, for several rounds. A serving process sees ever new lengths: what a kernel builds per
shape (primitives, packed weights, tuning) shows in the first pass and, where it is not kept, in every pass.

    PYTHONPATH=build/python /usr/bin/python3 bench/decoder/prompts_compare.py [--model M] [--threads 1] [--rounds 3]

Prints ms per prompt per engine and round (first pass, best later pass) and the median of the per-round ratios."""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LAYERS, HEADS, HEAD, VOCAB = 6, 8, 64, 8192


def lengths(count, fixed):
    out, x = [], 12345
    for _ in range(count):
        x = (x * 1103515245 + 12345) % 2147483648
        out.append(fixed if fixed else 8 + x % 193)
    return out


def onyx_worker(model, threads, prompt_lengths):
    import onyx
    opts = onyx.SessionOptions()
    opts.intra_op_num_threads = threads
    sess = onyx.InferenceSession(model, sess_options=opts)

    def feeds(length):
        f = {'input_ids': np.array([[(i * 37 + 11) % VOCAB for i in range(length)]], np.int64)}
        for i in range(LAYERS):
            for k in ('key', 'value'):
                f[f'past_{k}_{i}'] = np.zeros((1, HEADS, 0, HEAD), np.float32)
        return f

    def one_pass():
        start = time.perf_counter()
        for length in prompt_lengths:
            sess.run(None, feeds(length))
        return (time.perf_counter() - start) / len(prompt_lengths) * 1000

    first = one_pass()
    later = min(one_pass(), one_pass())
    print(json.dumps({'engine': 'onyx', 'first_ms': first, 'ms': later}))


def run(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--model', default=os.path.expanduser('~/.cache/onyx-bench/models/gpt2_like_dec6.onnx'))
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--count', type=int, default=80)
    ap.add_argument('--length', type=int, default=0, help='one prompt length throughout (default: random 8-200)')
    ap.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
    args = ap.parse_args()
    prompt_lengths = lengths(args.count, args.length)
    if args.worker:
        onyx_worker(args.model, args.threads, prompt_lengths)
        return
    if not os.path.exists(args.model):
        sys.exit(f'{args.model} missing: run bench/decoder/export_gpt2.py first')
    node = shutil.which('node')
    if node is None:
        sys.exit('node is needed for ONNX Runtime (onnxruntime-node)')
    env = dict(os.environ)
    env.setdefault('NODE_PATH', os.path.expanduser('~/.cache/onyx-bench/ort/node_modules'))
    text = ','.join(map(str, prompt_lengths))
    ratios = []
    for r in range(args.rounds):
        onyx = run([sys.executable, os.path.abspath(__file__), '--worker', '--model', args.model, '--threads',
                    str(args.threads), '--count', str(args.count), '--length', str(args.length)], env)
        ort = run([node, os.path.join(HERE, 'ort_prompts.mjs'), args.model, str(args.threads), text], env)
        ratios.append(onyx['ms'] / ort['ms'])
        print(f"round {r + 1}: onyx {onyx['ms']:.2f} ms (first pass {onyx['first_ms']:.2f})   "
              f"ORT {ort['ms']:.2f} ms (first pass {ort['first_ms']:.2f})   onyx/ORT {ratios[-1]:.3f}", flush=True)
    print(f'threads {args.threads}: median onyx/ORT latency ratio {statistics.median(ratios):.3f} '
          f'(range {min(ratios):.3f}-{max(ratios):.3f}) over {args.count} prompts of '
          + (f'{args.length} tokens' if args.length else 'random length 8-200'))


if __name__ == '__main__':
    main()
