#!/usr/bin/python3
"""Throughput of onyx.dask.map_blocks with 1 and with 2 worker processes (1 thread each) on a LocalCluster, and of
`onyx batch` batched vs unbatched: the numbers of docs/batch.md.

usage: PYTHONPATH=build/python bench/dask_throughput.py MODEL [MODEL...] [--items N] [--onyx build/bin/onyx]
       [--data workers|client] [--rounds N] [--no-batch]
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


def _create_session(model):
    import onyx.dask
    onyx.dask._session(model, 1)  # the session map_blocks(threads=1) uses on this worker


def dask_rate(model, x, workers, fixed_batch, data):
    """Items/s of map_blocks over x on a LocalCluster of `workers` processes with 1 thread each, after every worker
    has created its session. data="workers": the input blocks are persisted on the workers first and the outputs
    stay there (what a cluster job does: workers read and write shared storage; the client moves no tensors);
    data="client": x travels from this process with the graph and the outputs come back to it."""
    import dask.array as da
    import distributed
    import onyx.dask
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        client.run(_create_session, model)  # every worker's session, created before timing
        # Several blocks per worker, so that the last ones balance out.
        arr = da.from_array(x, chunks=(max(1, len(x) // (8 * workers)),) + x.shape[1:])
        batch = 1 if fixed_batch else 32
        onyx.dask.map_blocks(model, arr[:1], batch_size=batch).compute()  # this process's probe session
        if data == "workers":
            # Made on the workers themselves (as blocks a worker reads from storage), spread over them, kept there.
            arr = da.random.RandomState(0).standard_normal(arr.shape, chunks=arr.chunks).astype(np.float32)
            arr = arr.persist()
            distributed.wait(arr)
            t = time.perf_counter()
            y = onyx.dask.map_blocks(model, arr, batch_size=batch).persist()
            distributed.wait(y)
        else:
            t = time.perf_counter()
            onyx.dask.map_blocks(model, arr, batch_size=batch).compute()
        rate = len(x) / (time.perf_counter() - t)
        if sum(client.run(onyx.dask.session_creations).values()) != workers:
            raise SystemExit("a worker created more than one session")
        return rate
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
    ap.add_argument("--data", choices=["workers", "client"], default="workers",
                    help="where the input blocks live and the outputs go (default: on the workers)")
    ap.add_argument("--rounds", type=int, default=1, help="1-worker/2-worker pairs, alternating (median ratio)")
    ap.add_argument("--no-batch", action="store_true", help="skip the onyx batch comparison")
    args = ap.parse_args()
    for model in args.models:
        name, shape, fixed = input_shape(model)
        x = np.random.default_rng(0).standard_normal([args.items] + shape[1:]).astype(np.float32)
        ratios = []
        for r in range(args.rounds):
            one = dask_rate(model, x, 1, fixed, args.data)
            two = dask_rate(model, x, 2, fixed, args.data)
            ratios.append(two / one)
            print(f"{os.path.basename(model)}: dask ({args.data} data) 1 worker {one:.1f} items/s, 2 workers "
                  f"{two:.1f} items/s, ratio {two / one:.2f}", flush=True)
        if args.rounds > 1:
            print(f"{os.path.basename(model)}: median ratio {float(np.median(ratios)):.2f} over {args.rounds} rounds")
        if not fixed and not args.no_batch:
            b1 = batch_rate(args.onyx, model, x, 1)
            b8 = batch_rate(args.onyx, model, x, 8)
            print(f"{os.path.basename(model)}: onyx batch unbatched {b1:.1f} items/s, batches of 8 {b8:.1f} items/s, "
                  f"ratio {b8 / b1:.2f}")


if __name__ == "__main__":
    main()
