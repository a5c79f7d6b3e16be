"""How `onyx serve` reads large request bodies: past httplib's first piece, straight from the connection's socket
(src/serve/connection_socket.h). Raw-socket clients check that every answer is right and lands on the right
connection, whatever the split between the header block and the body:

  - header blocks of 4,080..4,110 bytes (httplib reads 4 KB with the headers: the body starts inside that read,
    exactly at its end, or after it), bodies of 128 KB;
  - two large requests pipelined in one send on one connection, then a small one;
  - 40 requests on one keep-alive connection alternating large and small bodies;
  - two connections interleaved: A sends its headers and half its body, B a whole request (answered first), then A
    the rest;
  - a body trickled in 16 pieces, 20 ms apart;
  - a body cut short, then a half-close: an error answer or a closed connection, never a hang; the server then still
    answers;
  - a body that stalls past --request-timeout-s: 408.

The model is tests/serve/data/affine_v1.onnx (y = Relu(x @ W + b)); answers are checked against numpy with the
model's own weights.

usage: body_read_test.py ONYX_BINARY
"""
import json
import os
import socket
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_harness import Checks, port_of, start_server, stop_server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "data", "affine_v1.onnx")
onyx = sys.argv[1]

weights = {t.name: numpy_helper.to_array(t) for t in onnx.load(MODEL).graph.initializer}
rng = np.random.default_rng(7)
checks = Checks()


def request(rows, pad=0, seed=0):
    """(bytes of a binary-data infer request for `rows` rows, expected y). `pad` adds a header of that many bytes."""
    x = np.random.default_rng(seed).standard_normal((rows, 4)).astype(np.float32)
    header = json.dumps({"inputs": [{"name": "x", "shape": [rows, 4], "datatype": "FP32",
                                     "parameters": {"binary_data_size": x.nbytes}}],
                         "outputs": [{"name": "y", "parameters": {"binary_data": True}}]}).encode()
    body = header + x.tobytes()
    head = (f"POST /v2/models/affine/infer HTTP/1.1\r\nHost: t\r\nContent-Type: application/octet-stream\r\n"
            f"Inference-Header-Content-Length: {len(header)}\r\nContent-Length: {len(body)}\r\n")
    if pad:
        head += "X-Pad: " + "p" * pad + "\r\n"
    expected = np.maximum(x @ weights["w"] + weights["b"], 0)
    return head.encode() + b"\r\n" + body, expected


class Conn:
    """A raw HTTP/1.1 connection; responses are read whole, what follows one stays buffered for the next."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def _more(self):
        chunk = self.sock.recv(65536)
        self.buf += chunk
        return bool(chunk)

    def response(self):
        """(status, headers, body) of the next response; None if the connection closed first."""
        while b"\r\n\r\n" not in self.buf:
            if not self._more():
                return None
        head, rest = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        length = int(headers.get("content-length", "0"))
        self.buf = rest
        while len(self.buf) < length:
            if not self._more():
                return None
        body, self.buf = self.buf[:length], self.buf[length:]
        return status, headers, body

    def close(self):
        self.sock.close()


def y_of(resp):
    status, headers, body = resp
    json_size = int(headers["inference-header-content-length"])
    meta = json.loads(body[:json_size])
    shape = meta["outputs"][0]["shape"]
    return np.frombuffer(body[json_size:], dtype=np.float32).reshape(shape)


def answered_right(resp, expected, what):
    ok = resp is not None and resp[0] == 200
    if ok:
        y = y_of(resp)
        ok = y.shape == expected.shape and np.allclose(y, expected, rtol=1e-5, atol=1e-5)
    checks.check(ok, what + ("" if resp is None else f" (HTTP {resp[0]})"))


proc, url, _ = start_server([onyx, "serve", MODEL, "--name", "affine", "--port", "0", "--quiet",
                             "--http-threads", "4", "--request-timeout-s", "2"])
port = port_of(url)
try:
    rows = 8192  # 128 KB of floats
    base_head = len(request(rows)[0]) - len(request(rows)[0].split(b"\r\n\r\n", 1)[1])
    # 1. header blocks ending around httplib's 4 KB read.
    c = Conn(port)
    for block in range(4080, 4111):
        data, expected = request(rows, pad=block - base_head - len("X-Pad: \r\n"), seed=block)
        c.send(data)
        answered_right(c.response(), expected, f"header block of {block} bytes, body of {rows * 16} bytes")
    # 2. two large requests pipelined in one send, then a small one.
    a, ea = request(rows, seed=1)
    b, eb = request(rows + 5, seed=2)
    s, es = request(3, seed=3)
    c.send(a + b + s)
    answered_right(c.response(), ea, "pipelined request 1 of 3")
    answered_right(c.response(), eb, "pipelined request 2 of 3")
    answered_right(c.response(), es, "pipelined request 3 of 3 (small)")
    # 3. keep-alive, alternating sizes.
    ok = True
    for i in range(40):
        data, expected = request(rows if i % 2 == 0 else 2 + i, seed=100 + i)
        c.send(data)
        resp = c.response()
        ok = ok and resp is not None and resp[0] == 200 and np.allclose(y_of(resp), expected, rtol=1e-5, atol=1e-5)
    checks.check(ok, "40 requests on one connection, large and small bodies alternating")
    c.close()
    # 4. two connections interleaved.
    ca, cb = Conn(port), Conn(port)
    a, ea = request(rows, seed=11)
    b, eb = request(rows * 2, seed=12)
    half = len(a) - rows * 8
    ca.send(a[:half])
    time.sleep(0.1)
    cb.send(b)
    answered_right(cb.response(), eb, "connection B answered while A's body is half sent")
    ca.send(a[half:])
    answered_right(ca.response(), ea, "connection A answered after the rest of its body")
    ca.close()
    cb.close()
    # 5. a trickled body.
    c = Conn(port)
    data, expected = request(rows, seed=21)
    piece = len(data) // 16 + 1
    for i in range(0, len(data), piece):
        c.send(data[i:i + piece])
        time.sleep(0.02)
    answered_right(c.response(), expected, "a body trickled in 16 pieces 20 ms apart")
    c.close()
    # 6. cut short, then a half-close.
    c = Conn(port)
    data, _ = request(rows, seed=31)
    c.send(data[:-1000])
    c.sock.shutdown(socket.SHUT_WR)
    start = time.time()
    resp = c.response()
    checks.check((resp is None or 400 <= resp[0] < 500) and time.time() - start < 10,
                  "a body cut short then half-closed: " + ("connection closed" if resp is None else f"HTTP {resp[0]}"))
    c.close()
    # 7. a stall past the request timeout.
    c = Conn(port)
    data, _ = request(rows, seed=41)
    c.send(data[:-1000])
    start = time.time()
    resp = c.response()
    checks.check(resp is not None and resp[0] == 408 and time.time() - start < 10,
                 "a body that stalls past --request-timeout-s 2: " + ("closed" if resp is None else f"HTTP {resp[0]}"))
    c.close()
    # The server still answers.
    c = Conn(port)
    data, expected = request(rows, seed=51)
    c.send(data)
    answered_right(c.response(), expected, "the server answers after the broken requests")
    c.close()
finally:
    code = stop_server(proc)
checks.check(code == 0, f"the server exits 0 on SIGTERM (exit {code})")
if checks.failures:
    print(f"{len(checks.failures)} check(s) failed")
    sys.exit(1)
print("all checks passed")
