"""End-to-end test of `onyx serve` beyond one model (ctest serve_repository): a Triton-layout model repository with
four models (BlazeFace; a batchable affine model in two versions; a TFLite model converted at load; a broken one),
every endpoint of the Open Inference Protocol (KServe v2 REST) including the repository extension, errors, dynamic
batching, the queue limit, token auth, TLS, unload/load under load, poll mode, the access log and graceful
shutdown. The client is written from the KServe v2 REST spec with urllib; reference outputs come from ONNX Runtime
(data/requests.json, tests/serve/ort_reference.mjs), LiteRT (tests/data/tflite_ops/log) and the BlazeFace test
data in models/.

usage: repository_test.py ONYX_BINARY
"""
import concurrent.futures
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import numpy as np
from onnx import load_tensor, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_harness  # noqa: E402
from serve_harness import Checks  # noqa: E402

ONYX = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FACE = os.path.join(ROOT, "models", "blazeface")
TFLITE = os.path.join(ROOT, "tests", "data", "tflite_ops", "log")
DATA = os.path.join(HERE, "data")
REFS = json.load(open(os.path.join(DATA, "requests.json")))
checks = Checks()
check, failures = checks.check, checks.failures


def request(url, body=None, headers=None, method=None, context=None):
    """Returns (status, headers, body bytes)."""
    req = urllib.request.Request(url, data=body, headers=headers or {},
                                 method=method or ("POST" if body is not None else "GET"))
    try:
        with urllib.request.urlopen(req, timeout=60, context=context) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def post_json(url, obj, headers=None, context=None):
    st, h, b = request(url, json.dumps(obj).encode(), {"Content-Type": "application/json", **(headers or {})},
                       context=context)
    try:
        return st, h, json.loads(b)
    except ValueError:
        return st, h, {"error": b.decode(errors="replace")}


def get_json(url, headers=None, context=None):
    st, h, b = request(url, headers=headers, context=context)
    try:
        return st, json.loads(b)
    except ValueError:
        return st, {"raw": b.decode(errors="replace")}


def start_server(*args):
    proc, base, _ = serve_harness.start_server([ONYX, "serve", "--port", "0", *args])
    return proc, base


stop_server = serve_harness.stop_server


def metric_series(base, headers=None):
    _, _, body = request(base + "/metrics", headers=headers)
    series = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            series[key] = float(value)
    return series


def affine_request(rows, name="features", datatype="FP32"):
    return {"inputs": [{"name": name, "shape": [len(rows), len(rows[0])], "datatype": datatype, "data": rows}]}


def close(got, want, atol=1e-5):
    return len(got) == len(want) and np.allclose(np.array(got, dtype=np.float64), np.array(want), atol=atol)


face_x = numpy_helper.to_array(load_tensor(os.path.join(FACE, "test_data_set_0", "input_0.pb")))
face_y0 = numpy_helper.to_array(load_tensor(os.path.join(FACE, "test_data_set_0", "output_0.pb")))


def face_infer(base, headers=None, context=None):
    """Binary request to face; returns (status, first output as an array or None)."""
    hdr = json.dumps({"inputs": [{"name": "input:0", "shape": list(face_x.shape), "datatype": "FP32",
                                  "parameters": {"binary_data_size": face_x.nbytes}}],
                      "outputs": [{"name": "Identity:0", "parameters": {"binary_data": True}}]}).encode()
    st, h, b = request(base + "/v2/models/face/infer", hdr + face_x.astype("<f4").tobytes(),
                       {"Inference-Header-Content-Length": str(len(hdr)), **(headers or {})}, context=context)
    if st != 200:
        return st, None
    n = int(h["Inference-Header-Content-Length"])
    return st, np.frombuffer(b[n:], dtype="<f4")


tmp = tempfile.mkdtemp(prefix="onyx_serve_test_")
repo = os.path.join(tmp, "repo")


def make_model(name, version, src, filename="model.onnx", config=None):
    d = os.path.join(repo, name, str(version))
    os.makedirs(d, exist_ok=True)
    shutil.copy(src, os.path.join(d, filename))
    if config is not None:
        with open(os.path.join(repo, name, "config.json"), "w") as f:
            json.dump(config, f)


make_model("face", 1, os.path.join(FACE, "model.onnx"))
affine_config = {"version_policy": {"all": {}}, "max_batch_size": 8, "max_queue_delay_us": 30000, "threads": 1,
                 "inputs": {"x": "features"}}
make_model("affine", 1, os.path.join(DATA, "affine_v1.onnx"), config=affine_config)
make_model("affine", 2, os.path.join(DATA, "affine_v2.onnx"))
make_model("logtf", 1, os.path.join(TFLITE, "model.tflite"), "model.tflite")
os.makedirs(os.path.join(repo, "broken", "1"))
with open(os.path.join(repo, "broken", "1", "model.onnx"), "wb") as f:
    f.write(b"this is not a model")
access_log = os.path.join(tmp, "access.log")

try:
    # ---------------------------------------------------------------- the repository server (explicit control)
    proc, base = start_server("--model-repository", repo, "--model-control-mode", "explicit",
                              "--load-model", "face", "--load-model", "affine", "--load-model", "logtf",
                              "--load-model", "broken", "--threads", "1", "--concurrency", "2",
                              "--max-request-mb", "1", "--access-log", access_log, "--quiet")
    try:
        st, meta = get_json(base + "/v2")
        check(st == 200 and "model_repository" in meta.get("extensions", []), "server metadata lists the extensions")
        st, live = get_json(base + "/v2/health/live")
        st2, ready = get_json(base + "/v2/health/ready")
        check(st == 200 and live["live"] and st2 == 200 and ready["ready"], "live and ready")

        st, _, index = post_json(base + "/v2/repository/index", {})
        states = {(m["name"], m.get("version")): m.get("state") for m in index}
        check(st == 200 and states.get(("face", "1")) == "READY" and states.get(("affine", "1")) == "READY" and
              states.get(("affine", "2")) == "READY" and states.get(("logtf", "1")) == "READY",
              f"index: face, affine v1+v2 and logtf READY ({index})")
        broken = [m for m in index if m["name"] == "broken"]
        check(len(broken) == 1 and broken[0]["state"] == "UNAVAILABLE" and "model.onnx" in broken[0].get("reason", ""),
              f"index: the broken model is UNAVAILABLE with the reason ({broken})")
        st, _, ready_index = post_json(base + "/v2/repository/index", {"ready": True})
        check(st == 200 and all(m["state"] == "READY" for m in ready_index) and len(ready_index) == 4,
              "index with ready=true lists the 4 ready versions only")

        st, meta = get_json(base + "/v2/models/affine")
        check(st == 200 and meta["versions"] == ["1", "2"] and meta["inputs"][0]["name"] == "features" and
              meta["inputs"][0]["shape"] == [-1, 4] and [o["name"] for o in meta["outputs"]] == ["y", "sum"] and
              meta.get("parameters", {}).get("max_batch_size") == 8,
              "affine metadata: the latest version, the served input name, max_batch_size")
        st, meta1 = get_json(base + "/v2/models/affine/versions/1")
        check(st == 200 and [o["name"] for o in meta1["outputs"]] == ["y"], "per-version metadata (version 1)")
        st, _ = get_json(base + "/v2/models/affine/versions/3")
        check(st == 404, "an unknown version -> 404")
        st, r = get_json(base + "/v2/models/affine/versions/1/ready")
        check(st == 200 and r["ready"] is True, "per-version ready")
        st, r = get_json(base + "/v2/models/broken/ready")
        check(st == 404 and r["ready"] is False and "model.onnx" in r.get("error", ""), "a failed model is not ready")
        st, r = get_json(base + "/v2/models/nosuch")
        check(st == 404 and "nosuch" in r.get("error", ""), "an unknown model -> 404")

        # Inference on each kind of model, checked against the official runtimes.
        st, y0 = face_infer(base)
        check(st == 200 and np.allclose(y0, face_y0.ravel(), atol=1e-4), "face (ONNX) binary inference matches")
        x = numpy_helper.to_array(load_tensor(os.path.join(TFLITE, "test_data_set_0", "input_0.pb")))
        ref = numpy_helper.to_array(load_tensor(os.path.join(TFLITE, "test_data_set_0", "output_0.pb")))
        st, _, resp = post_json(base + "/v2/models/logtf/infer", {"inputs": [
            {"name": "input_0", "shape": list(x.shape), "datatype": "FP32", "data": x.ravel().tolist()}]})
        check(st == 200 and close(resp["outputs"][0]["data"], ref.ravel(), 1e-5),
              f"logtf (TFLite converted at load) matches LiteRT ({st})")
        st, _, resp = post_json(base + "/v2/models/affine/versions/1/infer", affine_request(REFS["requests"][1]))
        check(st == 200 and resp["model_version"] == "1" and close(resp["outputs"][0]["data"], REFS["v1"][1]["y"]),
              "affine version 1 matches ONNX Runtime")
        alone = resp["outputs"][0]["data"]

        # Dynamic batching: concurrent requests to both versions, each answer checked against ONNX Runtime's
        # answer to that request alone.
        def one(args):
            version, i = args
            st, _, resp = post_json(base + f"/v2/models/affine/versions/{version}/infer",
                                    affine_request(REFS["requests"][i]))
            return version, i, st, resp
        jobs = [(v, i) for i in range(16) for v in (1, 2)]
        with concurrent.futures.ThreadPoolExecutor(32) as pool:
            results = list(pool.map(one, jobs))
        ok = True
        for version, i, st, resp in results:
            want = REFS[f"v{version}"][i]
            got = {o["name"]: o["data"] for o in resp.get("outputs", [])}
            ok = ok and st == 200 and all(close(got.get(k, []), v) for k, v in want.items())
            ok = ok and all(o["shape"][0] == len(REFS["requests"][i]) for o in resp["outputs"])
            if version == 1 and i == 1:
                ok = ok and np.allclose(got["y"], alone, atol=1e-6)
        check(ok, "32 concurrent requests (two versions, 1 or 2 rows) each get ONNX Runtime's answer")
        s = metric_series(base)
        for v in ("1", "2"):
            lbl = f'model="affine",version="{v}"'
            runs = s.get(f"onyx_inference_batch_size_count{{{lbl}}}", 0)
            singles = s.get(f'onyx_inference_batch_size_bucket{{{lbl},le="1"}}', 0)
            check(0 < runs < 16 + (1 if v == "1" else 0) and singles < runs,
                  f"version {v}: batches of more than one request ran ({runs:.0f} runs, {singles:.0f} of size 1)")
        check(s.get('onyx_inference_requests_total{model="affine",version="2",status="success"}') == 16 and
              s.get('onyx_inference_requests_total{model="face",version="1",status="success"}') == 1 and
              s.get('onyx_inference_queue_duration_seconds_count{model="affine",version="2"}') == 16 and
              s.get('onyx_inference_compute_duration_seconds_count{model="affine",version="2"}') == 16,
              "metrics per model and version: request counts, queue and compute histograms")

        # Bad requests among good ones in the same batching window: each bad one gets its own 400, the good ones
        # their answers.
        def mixed(i):
            if i % 3 == 0:
                bad = [affine_request([[1.0] * 5]), affine_request(REFS["requests"][0], datatype="FP64"),
                       affine_request(REFS["requests"][0], name="x"), affine_request([[0.5] * 4] * 9)][i // 3 % 4]
                st, _, resp = post_json(base + "/v2/models/affine/infer", bad)
                return st == 400 and resp.get("error", "") != ""
            st, _, resp = post_json(base + "/v2/models/affine/infer", affine_request(REFS["requests"][i]))
            return st == 200 and close(resp["outputs"][0]["data"], REFS["v2"][i]["y"])
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            check(all(pool.map(mixed, range(16))),
                  "bad requests (inner dim, datatype, input name, batch over max) get 400s; their batch-mates answers")

        # Errors: status and a message naming the problem.
        infer = base + "/v2/models/affine/infer"
        st, _, b = request(infer, b"{not json", {"Content-Type": "application/json"})
        check(st == 400 and b"not valid JSON" in b, "malformed JSON -> 400")
        st, _, r = post_json(infer, affine_request([[1.0, 2.0, 3.0]]))
        check(st == 400 and "features" in r["error"] and "shape" in r["error"], f"wrong shape -> 400 ({r['error']})")
        st, _, r = post_json(infer, affine_request([[1, 2, 3, 4]], datatype="INT64"))
        check(st == 400 and "features" in r["error"], f"wrong datatype -> 400 ({r['error']})")
        st, _, r = post_json(infer, affine_request([[0.5] * 4] * 9))
        check(st == 400 and "max_batch_size" in r["error"], f"batch over max_batch_size -> 400 ({r['error']})")
        hdr = json.dumps({"inputs": [{"name": "features", "shape": [2, 4], "datatype": "FP32",
                                      "parameters": {"binary_data_size": 32}}]}).encode()
        st, _, b = request(infer, hdr + b"\0" * 12, {"Inference-Header-Content-Length": str(len(hdr))})
        check(st == 400 and b"binary_data_size" in b, "truncated binary data -> 400")
        st, _, b = request(infer, hdr + b"\0" * 32, {"Inference-Header-Content-Length": str(len(hdr) + 100)})
        check(st == 400 and b"Inference-Header-Content-Length" in b, "header length past the body -> 400")
        st, _, b = request(infer, b"x" * (2 << 20), {"Content-Type": "application/json"})
        check(st == 413 and b"limit" in b, "a body over --max-request-mb -> 413")
        big_headers = {f"X-Pad-{i}": "p" * 4000 for i in range(6)}
        st, _, b = request(base + "/v2/models/affine", headers=big_headers)
        check(st == 431 and b"headers" in b, "headers over the limit -> 431")
        st, _, b = request(base + "/v2/nothing/here")
        check(st == 404 and b"no such endpoint" in b, "an unknown path -> 404")

        # Unload and load one model while another is queried: no failed request to the other.
        stop = threading.Event()
        face_results = []

        def hammer():
            while not stop.is_set():
                face_results.append(face_infer(base)[0])
        t = threading.Thread(target=hammer)
        t.start()
        cycle_ok = True
        for _ in range(5):
            st, _, _ = post_json(base + "/v2/repository/models/affine/unload", {})
            st2, r = get_json(base + "/v2/models/affine/ready")
            st3, _, r3 = post_json(infer, affine_request(REFS["requests"][0]))
            cycle_ok = cycle_ok and st == 200 and st2 == 404 and st3 == 404 and "unloaded" in r3.get("error", "")
            st, _, _ = post_json(base + "/v2/repository/models/affine/load", {})
            st2, r = get_json(base + "/v2/models/affine/ready")
            cycle_ok = cycle_ok and st == 200 and st2 == 200
        time.sleep(0.2)
        stop.set()
        t.join()
        check(cycle_ok, "unload -> not ready, 404 naming the unload; load -> ready again (5 cycles)")
        check(len(face_results) > 5 and all(s == 200 for s in face_results),
              f"{len(face_results)} requests to face meanwhile, all answered 200")
        st, _, index = post_json(base + "/v2/repository/index", {})
        st, _, r = post_json(base + "/v2/repository/models/nosuch/load", {})
        check(st == 404 and "nosuch" in r["error"], "loading a model not in the repository -> 404")
        st, _, r = post_json(base + "/v2/repository/models/broken/load", {})
        check(st == 400 and "model.onnx" in r["error"], f"loading a broken model -> 400 with the reason")
        st, _, r = post_json(base + "/v2/models/affine/infer", affine_request(REFS["requests"][3]))
        check(st == 200 and close(r["outputs"][0]["data"], REFS["v2"][3]["y"]), "affine answers after the reloads")

        # Request ids in the JSON access log.
        st, h, _ = request(base + "/v2/models/face", headers={"X-Request-Id": "test-id-42"})
        _, h2, _ = request(base + "/v2/models/face")
        check(h.get("X-Request-Id") == "test-id-42" and h2.get("X-Request-Id", "") not in ("", "test-id-42"),
              "X-Request-Id: the client's is echoed, one is made up otherwise")
    finally:
        code = stop_server(proc)
    check(code == 0, f"SIGTERM stops the repository server with exit 0 (got {code})")
    lines = [json.loads(line) for line in open(access_log)]
    mine = [r for r in lines if r["request_id"] == "test-id-42"]
    check(len(lines) > 50 and len(mine) == 1 and mine[0]["path"] == "/v2/models/face" and mine[0]["status"] == 200
          and mine[0]["method"] == "GET" and "duration_ms" in mine[0] and "time" in mine[0],
          f"access log: {len(lines)} JSON lines with request ids, paths, statuses and durations")

    # ---------------------------------------------------------------- token auth
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write("s3cret-token\n")
    proc, base = start_server(os.path.join(FACE, "model.onnx"), "--name", "face", "--auth-token-file", token_file,
                              "--quiet")
    try:
        good = {"Authorization": "Bearer s3cret-token"}
        st, r = get_json(base + "/v2/models/face")
        check(st == 401 and "Bearer" in r.get("error", ""), "no token -> 401")
        st, r = get_json(base + "/v2/models/face", {"Authorization": "Bearer s3cret-tokeN"})
        check(st == 401, "wrong token -> 401")
        st, _, _ = request(base + "/metrics", headers={"Authorization": "Bearer s3cret-token-and-more"})
        check(st == 401, "longer token -> 401 (metrics are protected too)")
        st, _ = face_infer(base)
        check(st == 401, "inference without token -> 401")
        st, r = get_json(base + "/v2/health/ready")
        st2, _ = get_json(base + "/v2/health/live")
        check(st == 200 and st2 == 200, "health stays open without a token")
        st, r = get_json(base + "/v2/models/face", good)
        st2, y0 = face_infer(base, good)
        check(st == 200 and st2 == 200 and np.allclose(y0, face_y0.ravel(), atol=1e-4), "the right token -> 200")
    finally:
        check(stop_server(proc) == 0, "auth server stops cleanly")

    # ---------------------------------------------------------------- TLS (self-signed certificate)
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    proc, base = start_server(os.path.join(FACE, "model.onnx"), "--name", "face", "--tls-cert", cert, "--tls-key", key,
                              "--quiet")
    try:
        ctx = ssl.create_default_context(cafile=cert)
        check(base.startswith("https://"), f"TLS server announces https ({base})")
        st, r = get_json(base + "/v2/health/ready", context=ctx)
        st2, y0 = face_infer(base, context=ctx)
        check(st == 200 and st2 == 200 and np.allclose(y0, face_y0.ravel(), atol=1e-4),
              "HTTPS: health and binary inference")
        try:
            request(base.replace("https://", "http://") + "/v2/health/ready")
            plain_refused = False
        except Exception:  # noqa: BLE001 - any failure of plain HTTP on the TLS port is the point
            plain_refused = True
        check(plain_refused, "plain HTTP on the TLS port gets no answer")
    finally:
        check(stop_server(proc) == 0, "TLS server stops cleanly")
    r = subprocess.run([ONYX, "serve", os.path.join(FACE, "model.onnx"), "--port", "0", "--tls-cert", key,
                        "--tls-key", cert], capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "TLS" in r.stderr, f"a bad certificate/key pair -> exit 1 ({r.stderr.strip()})")

    # ---------------------------------------------------------------- queue limit and graceful shutdown
    proc, base = start_server(os.path.join(DATA, "affine_v1.onnx"), "--name", "affine", "--max-batch-size", "8",
                              "--max-queue-delay-us", "700000", "--max-queue", "2", "--quiet")
    try:
        def slow(i):
            return post_json(base + "/v2/models/affine/infer", affine_request(REFS["requests"][i], name="x"))
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            futures = []
            for i in range(4):
                futures.append(pool.submit(slow, i))
                time.sleep(0.05)
            answers = [f.result() for f in futures]
        codes = sorted(st for st, _, _ in answers)
        busy = [r for st, _, r in answers if st == 503]
        check(codes == [200, 200, 503, 503] and all("--max-queue" in r["error"] for r in busy),
              f"over --max-queue -> 503 naming the limit ({codes})")
        s = metric_series(base)
        check(s.get('onyx_inference_batch_size_bucket{model="affine",version="1",le="1"}') == 0 and
              s.get('onyx_inference_batch_size_count{model="affine",version="1"}') == 1,
              "the two admitted requests ran as one batch")
        pool = concurrent.futures.ThreadPoolExecutor(1)
        pending = pool.submit(slow, 5)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        st, _, r = pending.result()
        check(st == 200 and close(r["outputs"][0]["data"], REFS["v1"][5]["y"]),
              "SIGTERM: the request in flight is still answered")
        pool.shutdown()
    finally:
        code = stop_server(proc)
    check(code == 0, f"and the server then exits 0 (got {code})")

    # ---------------------------------------------------------------- poll mode
    repo2 = os.path.join(tmp, "repo2")
    os.makedirs(os.path.join(repo2, "affine", "1"))
    shutil.copy(os.path.join(DATA, "affine_v1.onnx"), os.path.join(repo2, "affine", "1", "model.onnx"))
    proc, base = start_server("--model-repository", repo2, "--model-control-mode", "poll",
                              "--repository-poll-secs", "1", "--quiet")
    try:
        st, meta = get_json(base + "/v2/models/affine")
        check(st == 200 and meta["versions"] == ["1"], "poll: version 1 served")
        os.makedirs(os.path.join(repo2, "affine", "2"))
        shutil.copy(os.path.join(DATA, "affine_v2.onnx"), os.path.join(repo2, "affine", "2", "model.onnx"))
        os.makedirs(os.path.join(repo2, "face", "1"))
        shutil.copy(os.path.join(FACE, "model.onnx"), os.path.join(repo2, "face", "1", "model.onnx"))
        deadline = time.time() + 10
        while time.time() < deadline:
            st, meta = get_json(base + "/v2/models/affine")
            st2, _ = get_json(base + "/v2/models/face/ready")
            if st == 200 and meta["versions"] == ["2"] and st2 == 200:
                break
            time.sleep(0.25)
        check(meta.get("versions") == ["2"] and st2 == 200,
              "poll: a new version replaces the old (latest policy), a new model loads")
        st, _, r = post_json(base + "/v2/models/affine/infer", affine_request(REFS["requests"][2], name="x"))
        check(st == 200 and close(r["outputs"][1]["data"], REFS["v2"][2]["sum"]), "poll: version 2 answers")
        st, _, r = post_json(base + "/v2/repository/models/affine/unload", {})
        check(st == 403 and "explicit" in r["error"], "poll mode: unload requests -> 403")
        shutil.rmtree(os.path.join(repo2, "face"))
        deadline = time.time() + 10
        while time.time() < deadline and get_json(base + "/v2/models/face/ready")[0] == 200:
            time.sleep(0.25)
        check(get_json(base + "/v2/models/face/ready")[0] == 404, "poll: a removed model is unloaded")
    finally:
        check(stop_server(proc) == 0, "poll server stops cleanly")

    # ---------------------------------------------------------------- command-line errors
    r = subprocess.run([ONYX, "serve", "--model-repository", os.path.join(tmp, "nowhere"), "--port", "0"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "nowhere" in r.stderr, "a missing repository -> exit 1 naming it")
    r = subprocess.run([ONYX, "serve", "--model-repository", repo, "--model-control-mode", "sometimes"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 2, "a bad control mode -> exit 2")
    r = subprocess.run([ONYX, "serve", "--model-repository", repo, "--load-model", "face"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and "explicit" in r.stderr, "--load-model without explicit mode -> exit 2")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
