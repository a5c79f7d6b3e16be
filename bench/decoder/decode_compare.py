#!/usr/bin/python3
"""Greedy decoding speed, onyx against ONNX Runtime, on the KV-cache decoder of export_gpt2.py: a 32-token prompt,
then 128 new tokens one at a time, each step feeding the previous step's present key/values back as past. Each
engine runs in its own process (onyx: the Python module, this script's --worker mode; ORT: ort_decode.mjs with
onnxruntime-node), alternating, for several rounds; both must produce the same token sequence.

    PYTHONPATH=build/python /usr/bin/python3 bench/decoder/decode_compare.py [--threads 1] [--rounds 3]

Prints tokens/s per engine and round, the median of the per-round ratios, and the prompt (prefill) times."""
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
LAYERS, HEADS, HEAD = 6, 8, 64


def onyx_worker(model, threads, prompt_len, new_tokens, level):
    import onyx
    opts = onyx.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.graph_optimization_level = level
    sess = onyx.InferenceSession(model, sess_options=opts)

    def decode(prompt, steps):
        past = {f'past_{k}_{i}': np.zeros((1, HEADS, 0, HEAD), np.float32) for i in range(LAYERS)
                for k in ('key', 'value')}
        names = ['logits'] + [f'present_{k}_{i}' for i in range(LAYERS) for k in ('key', 'value')]
        ids = np.array([prompt], np.int64)
        tokens, prompt_ms, t0 = [], 0.0, 0.0
        for step in range(steps + 1):
            if step == 1:
                t0 = time.perf_counter()
            start = time.perf_counter()
            out = sess.run(names, {'input_ids': ids, **past})
            if step == 0:
                prompt_ms = (time.perf_counter() - start) * 1000
            nxt = int(np.argmax(out[0][0, -1]))
            tokens.append(nxt)
            past = {f'past_{k}_{i}': out[1 + 2 * i + (k == 'value')] for i in range(LAYERS) for k in ('key', 'value')}
            ids = np.array([[nxt]], np.int64)
        return tokens, prompt_ms, time.perf_counter() - t0

    prompt = [(i * 37 + 11) % 8192 for i in range(prompt_len)]
    decode(prompt, 4)  # warm-up
    tokens, prompt_ms, seconds = decode(prompt, new_tokens)
    print(json.dumps({'engine': 'onyx', 'tokens': tokens, 'prompt_ms': prompt_ms,
                      'tokens_per_s': new_tokens / seconds}))


def run(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--model', default=os.path.expanduser('~/.cache/onyx-bench/models/gpt2_like_dec6.onnx'))
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--prompt', type=int, default=32)
    ap.add_argument('--new-tokens', type=int, default=128)
    ap.add_argument('--opt-level', type=int, default=99, help='onyx graph_optimization_level (0, 1, 2, 99)')
    ap.add_argument('--no-pin', action='store_true', help='do not pin the engines to CPUs (taskset)')
    ap.add_argument('--allow-different-tokens', action='store_true',
                    help='report, do not stop at, different token sequences (a weight-only quantized model: ONNX '
                         "Runtime's MatMulNBits fusion quantizes the activations to int8 by default)")
    ap.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        onyx_worker(a.model, a.threads, a.prompt, a.new_tokens, a.opt_level)
        return
    node_env = dict(os.environ, NODE_PATH=os.path.expanduser('~/.cache/onyx-bench/ort/node_modules'))
    onyx_cmd = [sys.executable, __file__, '--worker', '--model', a.model, '--threads', str(a.threads), '--prompt',
                str(a.prompt), '--new-tokens', str(a.new_tokens), '--opt-level', str(a.opt_level)]
    ort_cmd = ['node', os.path.join(HERE, 'ort_decode.mjs'), a.model, str(a.threads), str(a.prompt),
               str(a.new_tokens)]
    ratios, rows = [], []
    tokens_ref = None
    cpus = os.cpu_count() or 1
    for r in range(a.rounds):
        # With fewer threads than CPUs both engines of a round run on the same CPUs, rotating between rounds (as
        # bench/compare.py: the vCPUs of the 2-vCPU machines measured here differ in speed).
        pin = []
        if a.threads < cpus and shutil.which('taskset') and not a.no_pin:
            first = (r * a.threads) % cpus
            pin = ['taskset', '-c', ','.join(str((first + i) % cpus) for i in range(a.threads))]
        o = run(pin + onyx_cmd)
        t = run(pin + ort_cmd, node_env)
        for res in (o, t):
            if tokens_ref is None:
                tokens_ref = res['tokens']
            elif res['tokens'] != tokens_ref and a.allow_different_tokens:
                same = next((i for i, (x, y) in enumerate(zip(res['tokens'], tokens_ref)) if x != y), 0)
                print(f"note: {res['engine']}'s tokens differ from token {same} on (round {r})")
            elif res['tokens'] != tokens_ref:
                sys.exit(f"token sequences differ ({res['engine']}, round {r}): {res['tokens'][:20]}... vs "
                         f"{tokens_ref[:20]}...")
        ratios.append(o['tokens_per_s'] / t['tokens_per_s'])
        rows.append((o, t))
        print(f"round {r}: onyx {o['tokens_per_s']:.1f} tok/s (prompt {o['prompt_ms']:.1f} ms)   "
              f"ORT {t['tokens_per_s']:.1f} tok/s (prompt {t['prompt_ms']:.1f} ms)   onyx/ORT {ratios[-1]:.3f}",
              flush=True)
    print(f"threads {a.threads}: onyx median {statistics.median(o['tokens_per_s'] for o, _ in rows):.1f} tok/s, "
          f"ORT median {statistics.median(t['tokens_per_s'] for _, t in rows):.1f} tok/s, "
          f"median onyx/ORT throughput ratio {statistics.median(ratios):.3f} "
          f"(range {min(ratios):.3f}-{max(ratios):.3f}); "
          + ("token sequences compared per round above" if a.allow_different_tokens else
             f"same {len(tokens_ref)} tokens from both: {tokens_ref[:8]}..."))


if __name__ == '__main__':
    main()
