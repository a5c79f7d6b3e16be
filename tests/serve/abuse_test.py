"""`onyx serve` under abuse (issue 20's acceptance): N seconds (--seconds, default 30; 60 by hand) of 32 concurrent
raw-socket clients against a model repository (BlazeFace, and a batchable affine model in two versions with dynamic
batching on), a fifth of whose requests are malformed in every way a client can get wrong:

  body:    bad JSON, bad UTF-8, not an object, no inputs, empty inputs (a missing input), an unknown input, an input
           given twice, wrong shape, negative dims, huge dims (over the element limit), too little or too much data,
           data nested too deep, datatype mismatch (strings for FP32, INT64 for an FP32 input), unknown datatype,
           an unknown output, a batch over max_batch_size, an oversized body (413);
  binary:  truncated binary data, binary_data_size past the body, Inference-Header-Content-Length past the body or
           not a number, bytes after the JSON that belong to no input;
  HTTP:    Content-Length larger than the body (then a half-close), smaller than the body, not a number; an unknown
           model or version (404), a wrong method (404/405), headers over --max-header-kb (431), one header line
           over httplib's 8 KB line limit, a garbage request line, bad chunked encoding;
  slow:    a client that sends headers then stalls (the body never comes), one that trickles its body past
           --request-timeout-s (408), one that stops in the middle of its headers, one that stops reading its
           (large) response.

Checked: every valid request gets the right answer (affine against ONNX Runtime's outputs in data/requests.json,
BlazeFace against its test data, binary tensors both ways); every malformed one a 4xx with a JSON {"error": "..."}
naming the problem, except where HTTP lets a server just close the connection instead (RFC 9112: a message it
cannot parse or that does not complete), which the KINDS table marks explicitly: a header block that never
completes, a header line over httplib's limit, a garbage request line, bad chunked encoding, a body that never
arrives (a stall, a trickle, or a half-close short of Content-Length); no request hangs; the server is alive at the end and exits 0 on SIGTERM; its RSS at
the end is at most 10% above its RSS after the warm-up (the first quarter of the run, at least 15 s: glibc's
per-thread arenas fill up over the first ~20 s, as tests/serve/reload_test.py shows).

usage: abuse_test.py ONYX_BINARY [--seconds N] [--clients N] [--seed N]
"""
import argparse
import json
import os
import random
import shutil
import socket
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict

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
ap.add_argument("--seconds", type=float, default=30)
ap.add_argument("--clients", type=int, default=32)
ap.add_argument("--malformed", type=float, default=0.2, help="fraction of malformed requests")
ap.add_argument("--seed", type=int, default=20)
args = ap.parse_args()

# Server limits the malformed requests run into; short socket timeouts keep the slow clients' cost inside the run.
MAX_REQUEST_MB = 1
READ_TIMEOUT_S = 4  # not shorter: on a loaded 2-core CI machine a client thread may wait seconds for the CPU
REQUEST_TIMEOUT_S = 6
CLIENT_TIMEOUT_S = 30  # a request not answered within this is a hang

face_x = numpy_helper.to_array(load_tensor(os.path.join(FACE, "test_data_set_0", "input_0.pb")))
face_y = [numpy_helper.to_array(load_tensor(os.path.join(FACE, "test_data_set_0", f"output_{i}.pb")))
          for i in range(4)]
FACE_OUTPUTS = ["Identity:0", "Identity_1:0", "Identity_2:0", "Identity_3:0"]


# ------------------------------------------------------------------------------------------------ raw HTTP client
class Closed(Exception):
    """The server closed the connection (or reset it) before a whole response came."""


def connect(port, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(CLIENT_TIMEOUT_S)
    s.connect(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def head(method, path, headers=(), content_length=None):
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{k}: {v}" for k, v in headers]
    if content_length is not None:
        lines.append(f"Content-Length: {content_length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def send_all(sock, data):
    try:
        sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server may answer (and close) before it has read everything: the answer is what counts


def read_response(sock, buf=b""):
    """Reads one response; returns (status, headers dict (lower-case keys), body, leftover bytes)."""
    try:
        while b"\r\n\r\n" not in buf:
            chunk = sock.recv(65536)
            if not chunk:
                raise Closed("closed before a response" if not buf else "closed inside the response headers")
            buf += chunk
        header_block, buf = buf.split(b"\r\n\r\n", 1)
        lines = header_block.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
        n = int(headers.get("content-length", "0"))
        while len(buf) < n:
            chunk = sock.recv(max(65536, n - len(buf)))
            if not chunk:
                raise Closed("closed inside the response body")
            buf += chunk
        return status, headers, buf[:n], buf[n:]
    except ConnectionResetError as e:
        raise Closed("connection reset") from e


class KeepAlive:
    """One client's persistent connection for valid requests; reconnects when the server closed it (idle timeout)."""

    def __init__(self, port):
        self.port, self.sock = port, None

    def request(self, method, path, headers=(), body=b""):
        for attempt in (0, 1):
            fresh = self.sock is None
            if fresh:
                self.sock = connect(self.port)
            try:
                send_all(self.sock, head(method, path, headers, len(body) if method == "POST" else None) + body)
                status, hdrs, data, _ = read_response(self.sock)
                if hdrs.get("connection", "").lower() == "close":
                    self.close()
                return status, hdrs, data
            except Closed:
                self.close()
                if fresh or attempt == 1:
                    raise  # a fresh connection closed without an answer: a real failure
        raise AssertionError("unreachable")

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None


# ------------------------------------------------------------------------------------------------ valid requests
def affine_body(rows, name="features", datatype="FP32", shape=None, **extra):
    inp = {"name": name, "shape": shape if shape is not None else [len(rows), len(rows[0])], "datatype": datatype,
           "data": rows}
    return json.dumps({"inputs": [inp], **extra}).encode()


def face_binary_body():
    hdr = json.dumps({"inputs": [{"name": "input:0", "shape": list(face_x.shape), "datatype": "FP32",
                                  "parameters": {"binary_data_size": face_x.nbytes}}],
                      "parameters": {"binary_data_output": True}}).encode()
    return hdr, hdr + face_x.astype("<f4").tobytes()


FACE_HDR, FACE_BODY = face_binary_body()
FACE_JSON_BODY = json.dumps({"inputs": [{"name": "input:0", "shape": list(face_x.shape), "datatype": "FP32",
                                         "data": face_x.ravel().tolist()}]}).encode()


def close_to(got, want, atol):
    got, want = np.asarray(got, dtype=np.float64).ravel(), np.asarray(want, dtype=np.float64).ravel()
    return got.shape == want.shape and np.allclose(got, want, atol=atol)


def valid_request(conn, rng):
    """One valid request on the keep-alive connection; returns (kind, error or None)."""
    pick = rng.random()
    if pick < 0.55:
        i = rng.randrange(16)
        version = rng.choice(["1", "2", None])
        path = "/v2/models/affine" + (f"/versions/{version}" if version else "") + "/infer"
        st, _, body = conn.request("POST", path, [("Content-Type", "application/json")],
                                   affine_body(REFS["requests"][i]))
        want = REFS["v1" if version == "1" else "v2"][i]
        if st != 200:
            return "affine", f"status {st}: {body[:200]!r}"
        resp = json.loads(body)
        got = {o["name"]: o for o in resp["outputs"]}
        if resp["model_version"] != (version or "2") or set(got) != set(want):
            return "affine", f"wrong version or outputs: {resp['model_version']} {sorted(got)}"
        for name, ref in want.items():
            if got[name]["shape"][0] != len(REFS["requests"][i]) or not close_to(got[name]["data"], ref, 1e-5):
                return "affine", f"output {name} differs from ONNX Runtime's"
        return "affine", None
    if pick < 0.9:
        st, hdrs, body = conn.request("POST", "/v2/models/face/infer",
                                      [("Inference-Header-Content-Length", str(len(FACE_HDR)))], FACE_BODY)
        if st != 200:
            return "face", f"status {st}: {body[:200]!r}"
        n = int(hdrs["inference-header-content-length"])
        resp = json.loads(body[:n])
        offset = n
        for o, ref in zip(resp["outputs"], face_y):
            size = o["parameters"]["binary_data_size"]
            got = np.frombuffer(body[offset:offset + size], dtype="<f4")
            offset += size
            if list(o["shape"]) != list(ref.shape) or not close_to(got, ref, 1e-4):
                return "face", f"output {o['name']} differs from the test data"
        if [o["name"] for o in resp["outputs"]] != FACE_OUTPUTS or offset != len(body):
            return "face", "wrong outputs or binary sizes"
        return "face", None
    path = rng.choice(["/v2/models/affine", "/v2/models/face/ready", "/v2/health/ready", "/v2"])
    st, _, body = conn.request("GET", path)
    if st != 200:
        return "get", f"GET {path}: status {st}"
    return "get", None


# ------------------------------------------------------------------------------------------------ malformed requests
# Each kind: fn(port) -> (status or "closed", body bytes, note). The expectation: the listed 4xx statuses, each with
# a JSON error message; "or-close" also allows the connection to close without an answer (and says why HTTP allows
# it); None for the kinds where nothing is owed (a client that stops reading its answer).
AFFINE = "/v2/models/affine/infer"


def one_shot(port, data, half_close=False, rcvbuf=None):
    s = connect(port, rcvbuf)
    try:
        send_all(s, data)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        st, _, body, _ = read_response(s)
        return st, body
    except Closed:
        return "closed", b""
    finally:
        s.close()


def post(port, path, body, headers=(), content_length=None, half_close=False):
    n = len(body) if content_length is None else content_length
    return one_shot(port, head("POST", path, [("Content-Type", "application/json"), *headers], n) + body, half_close)


def binary_affine(size_param, payload, header_len=None):
    hdr = json.dumps({"inputs": [{"name": "features", "shape": [2, 4], "datatype": "FP32",
                                  "parameters": {"binary_data_size": size_param}}]}).encode()
    return [("Inference-Header-Content-Length", str(len(hdr)) if header_len is None else header_len)], hdr + payload


def stall_after_headers(port):
    # The body never comes: the read times out; the server answers 400 (or closes) and frees its worker.
    s = connect(port)
    try:
        send_all(s, head("POST", AFFINE, [("Content-Type", "application/json")], 100))
        st, _, body, _ = read_response(s)
        return st, body
    except Closed:
        return "closed", b""
    finally:
        s.close()


def stall_in_headers(port):
    s = connect(port)
    try:
        send_all(s, b"POST " + AFFINE.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
        st, _, body, _ = read_response(s)
        return st, body
    except Closed:
        return "closed", b""
    finally:
        s.close()


def trickle_body(port):
    # Each byte arrives within the read timeout, the whole body not within --request-timeout-s: 408.
    body = affine_body(REFS["requests"][0])
    s = connect(port)
    try:
        send_all(s, head("POST", AFFINE, [("Content-Type", "application/json")], len(body)))
        deadline = time.time() + REQUEST_TIMEOUT_S + 3
        for i in range(len(body)):
            if time.time() > deadline:
                break
            try:
                s.sendall(body[i:i + 1])
            except (BrokenPipeError, ConnectionResetError):
                break
            time.sleep(0.5)
        st, _, data, _ = read_response(s)
        return st, data
    except Closed:
        return "closed", b""
    finally:
        s.close()


def stop_reading(port):
    # A large JSON answer to a client with a tiny receive buffer that never reads it: the server's write blocks until
    # its write timeout; it must not hang a worker for good or crash.
    s = connect(port, rcvbuf=4096)
    try:
        send_all(s, head("POST", "/v2/models/face/infer", [("Content-Type", "application/json")],
                         len(FACE_JSON_BODY)) + FACE_JSON_BODY)
        time.sleep(READ_TIMEOUT_S + 1)
    finally:
        s.close()
    return None, b""


def bad_chunked(port):
    return one_shot(port, head("POST", AFFINE, [("Transfer-Encoding", "chunked")]) + b"zz\r\nabc\r\n0\r\n\r\n")


def long_header_line(port):
    return one_shot(port, head("GET", "/v2/models/affine", [("X-Long", "a" * 9000)]))


def many_headers(port):
    return one_shot(port, head("GET", "/v2/models/affine", [(f"X-Pad-{i}", "p" * 4000) for i in range(6)]))


def short_content_length(port):
    body = affine_body(REFS["requests"][0])
    return post(port, AFFINE, body, content_length=len(body) // 2)


def oversized(port):
    return post(port, AFFINE, b"[" + b"1," * (MAX_REQUEST_MB << 20) + b"1]")


r0 = REFS["requests"][0]
KINDS = {
    # name: (function, allowed statuses, text the error must contain, close allowed)
    "bad JSON": (lambda p: post(p, AFFINE, b'{"inputs": [{"name": "features",'), {400}, "JSON", False),
    "bad UTF-8": (lambda p: post(p, AFFINE, b'{"inputs": [{"name": "feat\xff\xfeures", "shape": [1, 4], '
                                 b'"datatype": "FP32", "data": [1, 2, 3, 4]}]}'), {400}, "JSON", False),
    "not an object": (lambda p: post(p, AFFINE, b"[1, 2, 3]"), {400}, "object", False),
    "no inputs field": (lambda p: post(p, AFFINE, b'{"outputs": []}'), {400}, "inputs", False),
    "missing input": (lambda p: post(p, AFFINE, b'{"inputs": []}'), {400}, "features", False),
    "missing input (face)": (lambda p: post(p, "/v2/models/face/infer", b'{"inputs": []}'), {400}, "input:0", False),
    "unknown input": (lambda p: post(p, AFFINE, affine_body(r0, name="x")), {400}, "x", False),
    "input twice": (lambda p: post(p, AFFINE, json.dumps({"inputs": [json.loads(affine_body(r0))["inputs"][0]] * 2})
                                   .encode()), {400}, "twice", False),
    "wrong shape": (lambda p: post(p, AFFINE, affine_body([[1.0] * 5])), {400}, "shape", False),
    "wrong rank": (lambda p: post(p, AFFINE, affine_body([1.0] * 4, shape=[4])), {400}, "shape", False),
    "negative dim": (lambda p: post(p, AFFINE, affine_body(r0, shape=[-1, 4])), {400}, "shape", False),
    "huge dims": (lambda p: post(p, AFFINE, affine_body(r0, shape=[1 << 40, 4])), {400}, "limit", False),
    "overflowing dims": (lambda p: post(p, AFFINE, affine_body(r0, shape=[1 << 62, 1 << 62])), {400}, "shape", False),
    "too little data": (lambda p: post(p, AFFINE, affine_body(r0, shape=[2, 4])), {400}, "elements", False),
    "nested too deep": (lambda p: post(p, AFFINE, affine_body(json.loads("[" * 100 + "1" + "]" * 100), shape=[1, 4])),
                        {400}, "nested", False),
    "strings for FP32": (lambda p: post(p, AFFINE, affine_body([["a", "b", "c", "d"]])), {400}, "number", False),
    "INT64 for FP32": (lambda p: post(p, AFFINE, affine_body([[1, 2, 3, 4]], datatype="INT64")), {400}, "features",
                       False),
    "BYTES for FP32": (lambda p: post(p, AFFINE, affine_body([["a", "b", "c", "d"]], datatype="BYTES")), {400},
                       "features", False),
    "unknown datatype": (lambda p: post(p, AFFINE, affine_body(r0, datatype="FP33")), {400}, "datatype", False),
    "unknown output": (lambda p: post(p, AFFINE, affine_body(r0, outputs=[{"name": "nope"}])), {400}, "nope", False),
    "batch over max": (lambda p: post(p, AFFINE, affine_body([[0.5] * 4] * 9)), {400}, "max_batch_size", False),
    "oversized body": (oversized, {413}, "limit", False),
    "truncated binary": (lambda p: post(p, AFFINE, binary_affine(32, b"\0" * 12)[1], binary_affine(32, b"")[0]),
                         {400}, "binary_data_size", False),
    "binary_data_size past body": (lambda p: post(p, AFFINE, binary_affine(1 << 40, b"\0" * 32)[1],
                                                  binary_affine(1 << 40, b"")[0]), {400}, "binary_data_size", False),
    "negative binary_data_size": (lambda p: post(p, AFFINE, binary_affine(-32, b"\0" * 32)[1],
                                                 binary_affine(-32, b"")[0]), {400}, "binary_data_size", False),
    "binary bytes left over": (lambda p: post(p, AFFINE, binary_affine(32, b"\0" * 40)[1],
                                              binary_affine(32, b"")[0]), {400}, "belong to no input", False),
    "header length past body": (lambda p: post(p, AFFINE, binary_affine(32, b"\0" * 32)[1],
                                               binary_affine(32, b"", "100000")[0]), {400},
                                "Inference-Header-Content-Length", False),
    "header length not a number": (lambda p: post(p, AFFINE, binary_affine(32, b"\0" * 32)[1],
                                                  binary_affine(32, b"", "12abc")[0]), {400},
                                   "Inference-Header-Content-Length", False),
    # The body ends before Content-Length: after the half-close the read fails; the server answers 400 (or closes:
    # a request whose body never completes need not be answered).
    "Content-Length past body": (lambda p: post(p, AFFINE, affine_body(r0), content_length=10000, half_close=True),
                                 {400, 408}, "body", True),
    # The JSON is cut at Content-Length: 400; the rest of the body is then a garbage request on the same connection.
    "Content-Length short": (short_content_length, {400}, "JSON", False),
    "Content-Length not a number": (lambda p: one_shot(p, head("POST", AFFINE, [("Content-Length", "12x")]) +
                                                       affine_body(r0)), {400}, "Content-Length", False),
    "unknown model": (lambda p: post(p, "/v2/models/nosuch/infer", affine_body(r0)), {404}, "nosuch", False),
    "unknown version": (lambda p: post(p, "/v2/models/affine/versions/7/infer", affine_body(r0)), {404}, "7", False),
    "wrong method GET infer": (lambda p: one_shot(p, head("GET", AFFINE)), {404, 405}, "", False),
    "wrong method PUT": (lambda p: one_shot(p, head("PUT", AFFINE, content_length=2) + b"{}"), {400, 404, 405}, "",
                         False),
    "wrong method DELETE model": (lambda p: one_shot(p, head("DELETE", "/v2/models/affine")), {404, 405}, "", False),
    "headers over the limit": (many_headers, {431}, "headers", False),
    # httplib refuses a header line over 8 KB while reading it: a 400 (RFC 9112 allows 4xx or a close).
    "header line over 8 KB": (long_header_line, {400, 431}, "", True),
    "garbage request line": (lambda p: one_shot(p, b"HELLO THERE\r\n\r\n"), {400}, "", True),
    "bad chunked encoding": (bad_chunked, {400}, "", True),
    # A body that never arrives: the read times out (--read-timeout-s); 400 with the reason, or a close.
    "stall after headers": (stall_after_headers, {400, 408}, "body", True),
    # A header block that never completes: after its read timeout httplib answers 400 (or may just close).
    "stall inside headers": (stall_in_headers, {400, 408}, "", True),
    "trickled body": (trickle_body, {408}, "longer than", True),
    "stops reading its answer": (stop_reading, None, "", True),
}
SLOW = {"stall after headers", "stall inside headers", "trickled body", "stops reading its answer"}


def judge(kind, result):
    """Returns None when the answer is what the kind must get, else the problem."""
    _, statuses, text, close_ok = KINDS[kind]
    status, body = result
    if statuses is None:
        return None
    if status == "closed":
        return None if close_ok else "the connection closed without an answer"
    if status not in statuses:
        return f"status {status} (want {sorted(statuses)}): {body[:200]!r}"
    try:
        msg = json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        return f"status {status} without a JSON error: {body[:200]!r}"
    if not isinstance(msg, str) or not msg or text.lower() not in msg.lower():
        return f"status {status}, error {msg!r} does not say '{text}'"
    return None


# ------------------------------------------------------------------------------------------------ the server
tmp = tempfile.mkdtemp(prefix="onyx_abuse_")
repo = os.path.join(tmp, "repo")
for name, version, src in [("face", 1, os.path.join(FACE, "model.onnx")),
                           ("affine", 1, os.path.join(DATA, "affine_v1.onnx")),
                           ("affine", 2, os.path.join(DATA, "affine_v2.onnx"))]:
    os.makedirs(os.path.join(repo, name, str(version)))
    shutil.copy(src, os.path.join(repo, name, str(version), "model.onnx"))
with open(os.path.join(repo, "affine", "config.json"), "w") as f:
    json.dump({"version_policy": {"all": {}}, "max_batch_size": 8, "max_queue_delay_us": 2000, "threads": 1,
               "inputs": {"x": "features"}}, f)


checks = Checks()
check, failures = checks.check, checks.failures


proc, base, _ = start_server([args.onyx, "serve", "--model-repository", repo, "--port", "0", "--threads", "1",
                              "--concurrency", "2", "--http-threads", "64", "--max-request-mb", str(MAX_REQUEST_MB),
                              "--read-timeout-s", str(READ_TIMEOUT_S), "--write-timeout-s", str(READ_TIMEOUT_S),
                              "--request-timeout-s", str(REQUEST_TIMEOUT_S), "--quiet"])
port = port_of(base)
try:

    # Every malformed kind once, alone, first: a clear per-kind verdict (and the regression checks).
    for kind, (fn, *_rest) in KINDS.items():
        if kind in SLOW:
            continue
        problem = judge(kind, fn(port))
        check(problem is None, f"alone: {kind}" + (f": {problem}" if problem else ""))
    check(proc.poll() is None, "the server is alive after each malformed kind")

    # The mixed run.
    lock = threading.Lock()
    counts = Counter()          # (kind, verdict)
    problems = defaultdict(list)
    statuses = defaultdict(Counter)
    kinds = list(KINDS)
    next_kind = [0]
    start = time.time()
    warm_until = start + max(15.0, args.seconds / 4)
    stop_at = start + args.seconds
    rss = {}

    def client(seed):
        rng = random.Random(seed)
        conn = KeepAlive(port)
        while time.time() < stop_at:
            if rng.random() < args.malformed:
                with lock:
                    kind = kinds[next_kind[0] % len(kinds)]
                    next_kind[0] += 1
                try:
                    result = KINDS[kind][0](port)
                    problem = judge(kind, result)
                except (socket.timeout, OSError) as e:
                    result, problem = ("error", b""), f"{type(e).__name__}: {e}"
                with lock:
                    counts[("malformed", problem is None)] += 1
                    statuses[kind][result[0]] += 1
                    if problem:
                        problems[kind].append(problem)
            else:
                try:
                    kind, problem = valid_request(conn, rng)
                except (socket.timeout, OSError, Closed) as e:
                    conn.close()
                    kind, problem = "valid", f"{type(e).__name__}: {e}"
                with lock:
                    counts[("valid", problem is None)] += 1
                    statuses[kind][200 if problem is None else "bad"] += 1
                    if problem:
                        problems[kind].append(problem)
        conn.close()

    def sampler():
        peak = 0
        while time.time() < stop_at:
            peak = max(peak, rss_kb(proc.pid))
            if "warm" not in rss and time.time() >= warm_until:
                rss["warm"] = rss_kb(proc.pid)
            time.sleep(0.2)
        rss["peak"] = peak

    threads = [threading.Thread(target=client, args=(args.seed * 1000 + i,)) for i in range(args.clients)]
    threads.append(threading.Thread(target=sampler))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=args.seconds + CLIENT_TIMEOUT_S + 30)
    hung = sum(t.is_alive() for t in threads)
    elapsed = time.time() - start
    time.sleep(READ_TIMEOUT_S + 1)  # let the server's timeouts close what the slow clients left
    rss["end"] = rss_kb(proc.pid)

    valid_ok, valid_bad = counts[("valid", True)], counts[("valid", False)]
    bad_ok, bad_bad = counts[("malformed", True)], counts[("malformed", False)]
    total = valid_ok + valid_bad + bad_ok + bad_bad
    print(f"{elapsed:.1f} s, {args.clients} clients: {total} requests, {valid_ok + valid_bad} valid "
          f"({valid_ok} right), {bad_ok + bad_bad} malformed ({bad_ok} answered as required, "
          f"{100.0 * (bad_ok + bad_bad) / max(total, 1):.1f}%)")
    for kind in sorted(statuses):
        print(f"  {kind:32s} {dict(statuses[kind])}")
    for kind, ps in problems.items():
        print(f"  PROBLEM {kind}: {len(ps)}x, e.g. {ps[0]}")
    check(hung == 0, f"no client hung ({hung} still running)")
    check(valid_bad == 0 and valid_ok > 0, f"every valid request got the right answer ({valid_ok} of "
          f"{valid_ok + valid_bad})")
    check(bad_bad == 0 and bad_ok > 0, f"every malformed request got its 4xx with a message, or a permitted close "
          f"({bad_ok} of {bad_ok + bad_bad})")
    missing = [k for k in KINDS if not statuses[k]]
    check(not missing, f"every malformed kind was sent during the run (missing: {missing})")
    check(proc.poll() is None, "the server is alive at the end")
    conn = KeepAlive(port)
    kind, problem = valid_request(conn, random.Random(1))
    conn.close()
    check(problem is None, f"and still answers right ({kind})")
    growth = (rss["end"] - rss["warm"]) / rss["warm"] if rss.get("warm") else float("inf")
    print(f"RSS: {rss.get('warm', 0) / 1024:.1f} MB after the warm-up, {rss.get('peak', 0) / 1024:.1f} MB peak, "
          f"{rss['end'] / 1024:.1f} MB at the end ({100 * growth:+.1f}%)")
    check(growth <= 0.10, "RSS at the end at most 10% above its value after the warm-up")
finally:
    if proc.poll() is None:
        code = stop_server(proc)
        check(code == 0, f"SIGTERM stops the server with exit 0 (got {code})")
    else:
        check(False, f"the server exited by itself with {proc.returncode}: {proc.stderr.read()[-2000:]}")
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
