#!/usr/bin/python3
"""Throughput of onyx.dask.map_blocks with 1 and with 2 worker processes (1 thread each) on a LocalCluster, and of
`onyx batch` batched vs unbatched: the numbers of docs/batch.md.

usage: PYTHONPATH=build/python bench/dask_throughput.py MODEL [MODEL...] [--items N] [--onyx build/bin/onyx]
A model whose first input dim is fixed at 1 is scored one row per run (batch_size=1); a dynamic one in blocks.
"""
import argparse
import os
import shutil
import subprocess
import tempfile
import time

import numpy as np


def input_shape(model):
    import onyx
    s = onyx.InferenceSession(model)
    i = s.get_inputs()[0]
    shape = [d if isinstance(d, int) else 1 for d in i.shape]
    return i.name, shape, isinstance(i.shape[0], int)


def dask_rate(model, x, workers, fixed_batch):
    import dask.array as da
    import distributed
    import onyx.dask

    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        arr = da.from_array(x, chunks=(max(1, len(x) // (4 * workers)),) + x.shape[1:])
        y = onyx.dask.map_blocks(model, arr[: 4 * workers], batch_size=1 if fixed_batch else 32)
        y.compute()  # warm: sessions created
        t = time.perf_counter()
        onyx.dask.map_blocks(model, arr, batch_size=1 if fixed_batch else 32).compute()
        return len(x) / (time.perf_counter() - t)
    finally:
        client.close()
        cluster.close()


def batch_rate(onyx_bin, model, x, batch_size):
    d = tempfile.mkdtemp(prefix="onyx_batch_bench_")
    try:
        os.makedirs(os.path.join(d, "in"))
        for i, row in enumerate(x):
            np.save(os.path.join(d, "in", f"x{i:05d}.npy"), row[None])
        t = time.perf_counter()
        subprocess.run([onyx_bin, "batch", model, "--inputs", os.path.join(d, "in"), "--output-dir",
                        os.path.join(d, "out"), "--batch-size", str(batch_size), "--workers", "1", "--threads", "2",
                        "--quiet"], check=True)
        return len(x) / (time.perf_counter() - t)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("models", nargs="+")
    ap.add_argument("--items", type=int, default=256)
    ap.add_argument("--onyx", default="build/bin/onyx")
    args = ap.parse_args()
    for model in args.models:
        name, shape, fixed = input_shape(model)
        x = np.random.default_rng(0).standard_normal([args.items] + shape[1:]).astype(np.float32)
        one = dask_rate(model, x, 1, fixed)
        two = dask_rate(model, x, 2, fixed)
        print(f"{os.path.basename(model)}: dask 1 worker {one:.1f} items/s, 2 workers {two:.1f} items/s, "
              f"ratio {two / one:.2f}")
        if not fixed:
            b1 = batch_rate(args.onyx, model, x, 1)
            b8 = batch_rate(args.onyx, model, x, 8)
            print(f"{os.path.basename(model)}: onyx batch unbatched {b1:.1f} items/s, batches of 8 {b8:.1f} items/s, "
                  f"ratio {b8 / b1:.2f}")


if __name__ == "__main__":
    main()
