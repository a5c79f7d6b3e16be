"""`onyx serve` model control under load (issue 20's acceptance): with --model-control-mode explicit, clients hammer
model A (BlazeFace, binary tensors) while models B (a copy of BlazeFace, and the batchable affine model in two
versions with dynamic batching on) are unloaded and loaded CYCLES times (default 100). Checked:
  - every request to A is answered right (BlazeFace's test data), none fails;
  - B's requests are answered right while B is loaded, and while it is not get a 404 with a JSON {"error"} naming the
    model (never a 500, a 503 or a dropped connection), across both the single-run and the batched path;
  - each unload and load answers 200 {} and the ready endpoint follows it;
  - no leak: the server's RSS after the cycles is within 10% of its RSS halfway through them;
  - and within MARGIN (default 10%) of its RSS after 30 warm-up cycles and 3 s under the same load: back to
    baseline. (Before `onyx serve` capped glibc's arenas at one per core, its many threads' arenas filled up: +20.8%
    after 100 cycles, +25-27% after 400; now +1.1%.) The numbers are printed.

usage: reload_test.py ONYX_BINARY [--cycles N] [--margin FRACTION]
"""
import argparse
import http.client
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter

import numpy as np
from onnx import load_tensor, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_harness import Checks, port_of, rss_kb, start_server, stop_server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FACE = os.path.join(ROOT, "models", "blazeface")
DATA = os.path.join(HERE, "data")
REFS = json.load(open(os.path.join(DATA, "requests.json")))

ap = argparse.ArgumentParser()
ap.add_argument("onyx")
ap.add_argument("--cycles", type=int, default=100)
WARMUP_CYCLES = 30
ap.add_argument("--margin", type=float, default=0.10)
ap.add_argument("--a-clients", type=int, default=4)
ap.add_argument("--b-clients", type=int, default=4)
args = ap.parse_args()

face_x = numpy_helper.to_array(load_tensor(os.path.join(FACE, "test_data_set_0", "input_0.pb")))
face_y0 = numpy_helper.to_array(load_tensor(os.path.join(FACE, "test_data_set_0", "output_0.pb")))
FACE_HDR = json.dumps({"inputs": [{"name": "input:0", "shape": list(face_x.shape), "datatype": "FP32",
                                   "parameters": {"binary_data_size": face_x.nbytes}}],
                       "outputs": [{"name": "Identity:0", "parameters": {"binary_data": True}}]}).encode()
FACE_BODY = FACE_HDR + face_x.astype("<f4").tobytes()

checks = Checks()
check, failures = checks.check, checks.failures


class Client:
    """One keep-alive connection (http.client), reopened when the server closed it."""

    def __init__(self, port):
        self.port, self.conn = port, None

    def request(self, method, path, body=None, headers=None):
        for attempt in (0, 1):
            fresh = self.conn is None
            if fresh:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                self.conn.request(method, path, body=body, headers=headers or {})
                r = self.conn.getresponse()
                data = r.read()
                if r.getheader("Connection", "").lower() == "close":
                    self.close()
                return r.status, r, data
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if fresh or attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def face_request(client, name):
    """Returns None when the answer is right, "unloaded" for a proper 404, else the problem."""
    st, r, data = client.request("POST", f"/v2/models/{name}/infer", FACE_BODY,
                                 {"Inference-Header-Content-Length": str(len(FACE_HDR))})
    if st == 404:
        return unloaded_answer(data, name)
    if st != 200:
        return f"{name}: status {st}: {data[:200]!r}"
    n = int(r.getheader("Inference-Header-Content-Length"))
    if not np.allclose(np.frombuffer(data[n:], dtype="<f4"), face_y0.ravel(), atol=1e-4):
        return f"{name}: wrong answer"
    return None


def affine_request(client, i, version):
    path = "/v2/models/affine" + (f"/versions/{version}" if version else "") + "/infer"
    rows = REFS["requests"][i]
    body = json.dumps({"inputs": [{"name": "features", "shape": [len(rows), 4], "datatype": "FP32", "data": rows}]})
    st, _, data = client.request("POST", path, body.encode(), {"Content-Type": "application/json"})
    if st == 404:
        return unloaded_answer(data, "affine")
    if st != 200:
        return f"affine: status {st}: {data[:200]!r}"
    resp = json.loads(data)
    want = REFS["v1" if version == "1" else "v2"][i]
    got = {o["name"]: o["data"] for o in resp["outputs"]}
    if set(got) != set(want) or not all(np.allclose(got[k], v, atol=1e-5) for k, v in want.items()):
        return "affine: wrong answer"
    return None


def unloaded_answer(data, name):
    try:
        msg = json.loads(data)["error"]
    except (ValueError, KeyError):
        return f"{name}: 404 without a JSON error: {data[:200]!r}"
    return "unloaded" if name in msg else f"{name}: 404 error does not name the model: {msg}"


tmp = tempfile.mkdtemp(prefix="onyx_reload_")
repo = os.path.join(tmp, "repo")
for name, version, src in [("face", 1, os.path.join(FACE, "model.onnx")),
                           ("face_b", 1, os.path.join(FACE, "model.onnx")),
                           ("affine", 1, os.path.join(DATA, "affine_v1.onnx")),
                           ("affine", 2, os.path.join(DATA, "affine_v2.onnx"))]:
    os.makedirs(os.path.join(repo, name, str(version)))
    shutil.copy(src, os.path.join(repo, name, str(version), "model.onnx"))
with open(os.path.join(repo, "affine", "config.json"), "w") as f:
    json.dump({"version_policy": {"all": {}}, "max_batch_size": 8, "max_queue_delay_us": 2000, "threads": 1,
               "inputs": {"x": "features"}}, f)

proc, base, _ = start_server([args.onyx, "serve", "--model-repository", repo, "--model-control-mode", "explicit",
                              "--load-model", "face", "--load-model", "face_b", "--load-model", "affine", "--port",
                              "0", "--threads", "1", "--concurrency", "2", "--quiet"])
port = port_of(base)
try:

    stop = threading.Event()
    lock = threading.Lock()
    outcomes = {"a": Counter(), "b": Counter()}
    problems = []

    def record(group, problem):
        with lock:
            if problem is None:
                outcomes[group]["right"] += 1
            elif problem == "unloaded":
                outcomes[group]["404 unloaded"] += 1
            else:
                outcomes[group]["failed"] += 1
                problems.append(problem)

    def a_client():
        client = Client(port)
        while not stop.is_set():
            try:
                record("a", face_request(client, "face"))
            except OSError as e:
                client.close()
                record("a", f"face: {type(e).__name__}: {e}")
        client.close()

    def b_client(seed):
        client, k = Client(port), seed
        while not stop.is_set():
            k += 1
            try:
                if k % 3 == 0:
                    record("b", face_request(client, "face_b"))
                else:
                    record("b", affine_request(client, k % 16, [None, "1", "2"][(k // 3) % 3]))
            except OSError as e:
                client.close()
                record("b", f"b: {type(e).__name__}: {e}")
        client.close()

    threads = [threading.Thread(target=a_client) for _ in range(args.a_clients)]
    threads += [threading.Thread(target=b_client, args=(i * 7,)) for i in range(args.b_clients)]
    for t in threads:
        t.start()

    control = Client(port)

    def cycle():
        """Unload and load both B models; returns the problems seen."""
        bad = []
        for name in ("affine", "face_b"):
            st, _, data = control.request("POST", f"/v2/repository/models/{name}/unload", b"{}")
            if st != 200 or json.loads(data) != {}:
                bad.append(f"unload {name}: {st} {data[:200]!r}")
            st, _, data = control.request("GET", f"/v2/models/{name}/ready")
            if st != 404:
                bad.append(f"{name} still ready after its unload ({st})")
        time.sleep(0.02)  # let B's clients meet the unloaded models
        for name in ("affine", "face_b"):
            st, _, data = control.request("POST", f"/v2/repository/models/{name}/load", b"{}")
            if st != 200 or json.loads(data) != {}:
                bad.append(f"load {name}: {st} {data[:200]!r}")
            st, _, data = control.request("GET", f"/v2/models/{name}/ready")
            if st != 200:
                bad.append(f"{name} not ready after its load ({st})")
        return bad

    # Baseline: warm-up cycles and a few seconds of load, so that every thread's arena and every kernel's scratch
    # is in use before it is measured. Several cycles: keep-alive connections last (up to 10,000 requests), so the
    # server's pool threads come into use only as B's clients reconnect after their 404s, cycle after cycle (one
    # cycle left the baseline ~5% low: the RSS then rose to a plateau by cycle ~30 and stayed there). 30 cycles: after
    # 10 the baseline still sat below that plateau and the growth over it measured +2.5% to +12.8% between runs of
    # the same binary (session 14: one fresh-clone CI run failed at +12.8%).
    cycle_problems = []
    for _ in range(WARMUP_CYCLES):
        cycle_problems += cycle()
    time.sleep(3)
    baseline = rss_kb(proc.pid)
    t0 = time.time()
    samples = []
    halfway = None
    for i in range(args.cycles):
        cycle_problems += cycle()
        if i % 10 == 9:
            samples.append(rss_kb(proc.pid))
        if i == args.cycles // 2 - 1:
            time.sleep(1)  # measured as at the end: B loaded, a second of load after the cycle
            halfway = rss_kb(proc.pid)
    cycles_s = time.time() - t0
    time.sleep(1)
    after = rss_kb(proc.pid)
    stop.set()
    for t in threads:
        t.join(timeout=120)
    control.close()

    print(f"{args.cycles} cycles (unload+load of affine v1+v2 and face_b) in {cycles_s:.1f} s; requests: "
          f"A {dict(outcomes['a'])}, B {dict(outcomes['b'])}")
    print("RSS every 10 cycles (MB): " + " ".join(f"{s / 1024:.1f}" for s in samples))
    growth = (after - baseline) / baseline
    second_half = (after - halfway) / halfway
    print(f"RSS: {baseline / 1024:.1f} MB after the warm-up ({WARMUP_CYCLES} cycles), {halfway / 1024:.1f} MB halfway, "
          f"{after / 1024:.1f} MB after {args.cycles} cycles ({100 * growth:+.1f}% over the baseline, "
          f"{100 * second_half:+.1f}% over the second half)")
    for p in problems[:10]:
        print("  PROBLEM " + p)
    check(not cycle_problems, f"every unload and load answered 200 and ready followed ({cycle_problems[:3]})")
    check(outcomes["a"]["right"] > 0 and outcomes["a"]["failed"] == 0 and outcomes["a"]["404 unloaded"] == 0,
          f"model A: {outcomes['a']['right']} requests, all answered right")
    check(outcomes["b"]["right"] > 0 and outcomes["b"]["404 unloaded"] > 0 and outcomes["b"]["failed"] == 0,
          f"models B: right answers while loaded, 404 naming the model while not, nothing else "
          f"({dict(outcomes['b'])})")
    check(second_half <= 0.10, "no leak: RSS after the cycles within 10% of RSS halfway through them")
    check(growth <= args.margin, f"RSS after the cycles within {100 * args.margin:.0f}% of the baseline")
    check(proc.poll() is None, "the server is alive")
finally:
    if proc.poll() is None:
        code = stop_server(proc)
        check(code == 0, f"SIGTERM stops the server with exit 0 (got {code})")
    else:
        check(False, f"the server exited by itself with {proc.returncode}: {proc.stderr.read()[-2000:]}")
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
