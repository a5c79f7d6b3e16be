"""End-to-end test of `onyx serve`: starts the server on a free port with the face detector that ships in models/,
then speaks the Open Inference Protocol to it over HTTP (JSON tensors, the binary tensor extension, concurrent
requests, errors) and checks the outputs against the model's reference data; finally stops it with SIGTERM.

usage: serve_test.py ONYX_BINARY
"""
import concurrent.futures
import json
import os
import signal
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request

import numpy as np
from onnx import numpy_helper, load_tensor

ONYX = sys.argv[1]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "models", "blazeface", "model.onnx")
DATA = os.path.join(ROOT, "models", "blazeface", "test_data_set_0")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def request(url, body=None, headers=None):
    """Returns (status, headers, body bytes)."""
    req = urllib.request.Request(url, data=body, headers=headers or {}, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def start_server(*extra):
    proc = subprocess.Popen([ONYX, "serve", MODEL, "--port", "0", *extra], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("listening on "):
            return proc, line.split("listening on ", 1)[1].strip()
    proc.kill()
    raise SystemExit("the server did not start: " + proc.stderr.read())


x = numpy_helper.to_array(load_tensor(os.path.join(DATA, "input_0.pb")))
expected = [numpy_helper.to_array(load_tensor(os.path.join(DATA, f"output_{i}.pb"))) for i in range(4)]

proc, base = start_server("--name", "blazeface", "--concurrency", "2", "--threads", "1")
try:
    status, _, body = request(base + "/v2/health/ready")
    check(status == 200 and json.loads(body)["ready"] is True, "ready")
    status, _, body = request(base + "/v2/models/blazeface")
    meta = json.loads(body)
    check(status == 200 and meta["inputs"] == [{"name": "input:0", "datatype": "FP32", "shape": [1, 128, 128, 3]}]
          and [o["name"] for o in meta["outputs"]] == ["Identity:0", "Identity_1:0", "Identity_2:0", "Identity_3:0"],
          "model metadata names the inputs and outputs with datatypes and shapes")

    infer = base + "/v2/models/blazeface/infer"
    # JSON tensors; nested data, two outputs asked for by name.
    req = {"id": "r1", "inputs": [{"name": "input:0", "shape": list(x.shape), "datatype": "FP32",
                                   "data": x.tolist()}],
           "outputs": [{"name": "Identity_2:0"}, {"name": "Identity:0"}]}
    status, _, body = request(infer, json.dumps(req).encode(), {"Content-Type": "application/json"})
    resp = json.loads(body)
    check(status == 200 and resp["id"] == "r1" and [o["name"] for o in resp["outputs"]] == ["Identity_2:0", "Identity:0"],
          "JSON inference answers the outputs asked for, in order, with the request id")
    for o, ref in zip(resp["outputs"], [expected[2], expected[0]]):
        got = np.array(o["data"], dtype=np.float32).reshape(o["shape"])
        check(o["datatype"] == "FP32" and list(got.shape) == list(ref.shape) and np.allclose(got, ref, atol=1e-4),
              f"JSON output {o['name']} matches the reference (max diff {np.abs(got - ref).max():.2e})")

    # Binary tensor extension both ways.
    header = json.dumps({"inputs": [{"name": "input:0", "shape": list(x.shape), "datatype": "FP32",
                                     "parameters": {"binary_data_size": x.nbytes}}],
                         "parameters": {"binary_data_output": True}}).encode()
    status, headers, body = request(infer, header + x.astype("<f4").tobytes(),
                                    {"Inference-Header-Content-Length": str(len(header)),
                                     "Content-Type": "application/octet-stream"})
    json_len = int(headers.get("Inference-Header-Content-Length", "0"))
    resp = json.loads(body[:json_len])
    offset = json_len
    ok = status == 200 and len(resp["outputs"]) == 4
    for o, ref in zip(resp["outputs"], expected):
        n = o["parameters"]["binary_data_size"]
        got = np.frombuffer(body[offset:offset + n], dtype="<f4").reshape(o["shape"])
        offset += n
        ok = ok and np.allclose(got, ref, atol=1e-4)
    check(ok and offset == len(body), "binary inference: all 4 outputs as raw bytes match the reference")

    # One keep-alive connection carries request after request (httplib's default closed it every 5th: a client then
    # paid a new connection for every fifth request).
    import http.client
    host, port = base.split("//", 1)[1].rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    kept = 0
    for _ in range(12):
        conn.request("POST", "/v2/models/blazeface/infer", body=header + x.astype("<f4").tobytes(),
                     headers={"Inference-Header-Content-Length": str(len(header)),
                              "Content-Type": "application/octet-stream"})
        r = conn.getresponse()
        r.read()
        kept += r.status == 200 and (r.getheader("Connection") or "").lower() != "close"
    conn.close()
    check(kept == 12, f"one connection carries 12 requests without being closed ({kept} kept it open)")

    # Concurrent requests (two run at once, the rest wait) all get their own right answer.
    def one(scale):
        xs = (x * scale).astype(np.float32)
        hdr = json.dumps({"inputs": [{"name": "input:0", "shape": list(xs.shape), "datatype": "FP32",
                                      "parameters": {"binary_data_size": xs.nbytes}}],
                          "outputs": [{"name": "Identity:0", "parameters": {"binary_data": True}}]}).encode()
        st, h, b = request(infer, hdr + xs.tobytes(), {"Inference-Header-Content-Length": str(len(hdr))})
        n = int(h["Inference-Header-Content-Length"])
        return st, np.frombuffer(b[n:], dtype="<f4")
    scales = [1.0, 0.5, 1.0, 0.5, 1.0, 0.5, 1.0, 0.5]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, scales))
    same = all(st == 200 for st, _ in results)
    for (_, a), s in zip(results, scales):
        ref = results[0][1] if s == 1.0 else results[1][1]
        same = same and np.array_equal(a, ref)
    check(same and np.allclose(results[0][1], expected[0].ravel(), atol=1e-4)
          and not np.allclose(results[0][1], results[1][1]), "8 concurrent requests each get their own input's answer")

    # Errors: status and a message naming the problem.
    def error_of(body, headers=None, url=infer):
        st, _, b = request(url, body, headers or {"Content-Type": "application/json"})
        try:
            return st, json.loads(b).get("error", "")
        except ValueError:
            return st, b.decode(errors="replace")
    st, msg = error_of(b"{not json")
    check(st == 400 and "not valid JSON" in msg, f"malformed JSON -> 400 ({msg})")
    st, msg = error_of(json.dumps({"inputs": [{"name": "input:0", "shape": [1, 128, 128, 3], "datatype": "INT64",
                                               "data": [0] * (128 * 128 * 3)}]}).encode())
    check(st == 400 and "input:0" in msg, f"wrong datatype -> 400 naming the input ({msg})")
    st, msg = error_of(json.dumps({"inputs": [{"name": "input:0", "shape": [1, 128, 128, 3], "datatype": "FP32",
                                               "data": [0.5] * 10}]}).encode())
    check(st == 400 and "input:0" in msg and "10" in msg, f"data count not matching the shape -> 400 ({msg})")
    st, msg = error_of(json.dumps({"inputs": [{"name": "input:0", "shape": [1, 64, 64, 3], "datatype": "FP32",
                                               "data": [0.5] * (64 * 64 * 3)}]}).encode())
    check(st == 400 and "input:0" in msg, f"shape the model does not accept -> 400 ({msg})")
    st, msg = error_of(json.dumps({"inputs": [{"name": "input:0", "shape": [4000000000, 4000000000, 4000000000],
                                               "datatype": "FP32", "data": []}]}).encode())
    check(st == 400 and "input:0" in msg, f"huge shape -> 400, no allocation ({msg})")
    st, msg = error_of(b'{"inputs": []}', url=base + "/v2/models/other/infer")
    check(st == 404 and "other" in msg, f"unknown model -> 404 ({msg})")
    st, msg = error_of(None, url=base + "/v2/models/blazeface/versions/7")
    check(st == 404, f"unknown version -> 404 ({msg})")
    hdr = b'{"inputs": [{"name": "input:0", "shape": [1,128,128,3], "datatype": "FP32", "parameters": {"binary_data_size": 99}}]}'
    st, msg = error_of(hdr + b"\0" * 10, {"Inference-Header-Content-Length": str(len(hdr))})
    check(st == 400 and "binary_data_size" in msg, f"truncated binary data -> 400 ({msg})")
    status, _, _ = request(base + "/v2/health/live")
    check(status == 200, "still live after the bad requests")

    # Prometheus metrics: 10 answered inferences (1 JSON, 1 binary, 8 concurrent) and 6 failed ones above (the
    # 404s for another model never reach the model).
    status, headers, body = request(base + "/metrics")
    text = body.decode()
    series = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            series[key] = float(value)
    m = 'model="blazeface",version="1"'
    check(status == 200 and headers.get("Content-Type", "").startswith("text/plain"), "metrics served as text")
    check(series.get('onyx_inference_requests_total{%s,status="success"}' % m) == 22 and
          series.get('onyx_inference_requests_total{%s,status="failure"}' % m) == 6,
          "metrics count 22 successful and 6 failed inferences")
    buckets = [v for k, v in series.items() if k.startswith("onyx_inference_request_duration_seconds_bucket")]
    check(buckets == sorted(buckets) and buckets[-1] == 28 and
          series.get("onyx_inference_request_duration_seconds_count{%s}" % m) == 28 and
          series.get("onyx_inference_compute_seconds_total{%s}" % m, 0) > 0,
          "request-duration histogram is cumulative and counts every inference")
finally:
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = None
log = proc.stderr.read()
check(code == 0, f"SIGTERM stops the server with exit 0 (got {code})")
check("POST /v2/models/blazeface/infer 200" in log, "access log on stderr")

# Command-line errors.
r = subprocess.run([ONYX, "serve", "/nonexistent/model.onnx", "--port", "0"], capture_output=True, text=True)
check(r.returncode == 1 and "nonexistent" in r.stderr, "missing model -> exit 1 naming it")
r = subprocess.run([ONYX, "serve", MODEL, "--bogus"], capture_output=True, text=True)
check(r.returncode == 2, "unknown option -> exit 2")
r = subprocess.run([ONYX, "serve", MODEL, "--port", "70000"], capture_output=True, text=True)
check(r.returncode == 2, "bad port -> exit 2")
r = subprocess.run([ONYX, "serve", MODEL, "--next-request-spin-us", "-1"], capture_output=True, text=True)
check(r.returncode == 2 and "--next-request-spin-us" in r.stderr, "negative spin -> exit 2 naming the option")
held, held_base = start_server("--quiet")
try:
    held_port = held_base.rsplit(":", 1)[1]
    r = subprocess.run([ONYX, "serve", MODEL, "--port", held_port], capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and held_port in r.stderr, f"port in use -> exit 1 ({r.stderr.strip()})")
finally:
    held.send_signal(signal.SIGINT)
    check(held.wait(timeout=30) == 0, "SIGINT stops the server with exit 0")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
