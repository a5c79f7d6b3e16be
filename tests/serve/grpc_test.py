"""End-to-end test of `onyx serve --grpc-port` (ctest serve_grpc): the Open Inference Protocol's gRPC face (KServe v2
GRPCInferenceService). The client is written from the protocol's specification: its Python stubs are generated at
test time from proto/grpc_predict_v2.proto with Debian's protoc and grpc_python_plugin (protobuf-compiler,
protobuf-compiler-grpc) and run on Debian's python3-grpcio. Against a real server over the model repository of
tests/serve/repository_test.py (BlazeFace; a batchable affine model in two versions; a TFLite model converted at
load; a broken one) plus an Identity model over eight datatypes, it checks every RPC: liveness, readiness, server
and model metadata, ModelInfer with typed contents and raw contents (answers equal to the reference outputs of the
HTTP tests: ONNX Runtime's in data/requests.json, LiteRT's, BlazeFace's test data), output selection and typed
outputs, the errors and their status codes, the repository extension (index, load, unload), concurrent calls batched
by the dynamic batcher (metrics read over HTTP), the queue limit, token auth, TLS, the access log, and graceful
shutdown with the HTTP server.

usage: grpc_test.py ONYX_BINARY
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import numpy as np
from onnx import TensorProto, helper, load_tensor, numpy_helper, save

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_harness  # noqa: E402
from serve_harness import Checks  # noqa: E402

ONYX = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROTO = os.path.join(ROOT, "proto", "grpc_predict_v2.proto")
FACE = os.path.join(ROOT, "models", "blazeface")
TFLITE = os.path.join(ROOT, "tests", "data", "tflite_ops", "log")
DATA = os.path.join(HERE, "data")
REFS = json.load(open(os.path.join(DATA, "requests.json")))
checks = Checks()
check, failures = checks.check, checks.failures


# ------------------------------------------------------------------ the client stubs, from the .proto
PLUGIN = shutil.which("grpc_python_plugin")
if PLUGIN is None or shutil.which("protoc") is None:
    raise SystemExit("grpc_test.py needs protoc and grpc_python_plugin: apt-get install protobuf-compiler "
                     "protobuf-compiler-grpc")
try:
    import grpc
except ImportError:
    raise SystemExit("grpc_test.py needs gRPC for Python: apt-get install python3-grpcio")
tmp = tempfile.mkdtemp(prefix="onyx_grpc_test_")
subprocess.run(["protoc", "-I", os.path.dirname(PROTO), "--python_out=" + tmp, "--grpc_python_out=" + tmp,
                "--plugin=protoc-gen-grpc_python=" + PLUGIN, PROTO], check=True)
sys.path.insert(0, tmp)
import grpc_predict_v2_pb2 as pb  # noqa: E402
import grpc_predict_v2_pb2_grpc as pb_grpc  # noqa: E402


def start_server(*args):
    """Starts `onyx serve` with gRPC on a free port; returns (process, HTTP base URL, gRPC target)."""
    return serve_harness.start_server([ONYX, "serve", "--port", "0", "--grpc-port", "0", *args])


def stop_server(proc, sig=signal.SIGTERM):
    return serve_harness.stop_server(proc, sig, timeout=60)


def call(method, request, metadata=None, timeout=60):
    """Returns (status code, response or None, details)."""
    try:
        return grpc.StatusCode.OK, method(request, metadata=metadata, timeout=timeout), ""
    except grpc.RpcError as e:
        return e.code(), None, e.details() or ""


def metric_series(base):
    with urllib.request.urlopen(base + "/metrics", timeout=60) as r:
        body = r.read().decode()
    series = {}
    for line in body.splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            series[key] = float(value)
    return series


def close(got, want, atol=1e-5):
    got, want = np.asarray(got, dtype=np.float64).ravel(), np.asarray(want, dtype=np.float64).ravel()
    return got.shape == want.shape and np.allclose(got, want, atol=atol)


def infer_input(name, datatype, shape, **contents):
    t = pb.ModelInferRequest.InferInputTensor(name=name, datatype=datatype, shape=list(shape))
    for field, values in contents.items():
        getattr(t.contents, field).extend(values)
    return t


def affine_request(rows, model="affine", version="", name="features", raw=False, outputs=None, typed=False):
    x = np.asarray(rows, dtype=np.float32)
    req = pb.ModelInferRequest(model_name=model, model_version=version, id=f"req-{len(rows)}")
    if raw:
        req.inputs.append(infer_input(name, "FP32", x.shape))
        req.raw_input_contents.append(x.astype("<f4").tobytes())
    else:
        req.inputs.append(infer_input(name, "FP32", x.shape, fp32_contents=x.ravel().tolist()))
    for out in outputs or []:
        o = req.outputs.add(name=out)
        if typed:
            o.parameters["binary_data"].bool_param = False
    return req


def output_arrays(resp):
    """{name: (datatype, shape, flat numpy array)} from raw or typed contents, as the protocol defines them."""
    dtypes = {"FP32": "<f4", "FP64": "<f8", "FP16": "<f2", "INT8": "i1", "INT16": "<i2", "INT32": "<i4",
              "INT64": "<i8", "UINT8": "u1", "UINT16": "<u2", "UINT32": "<u4", "UINT64": "<u8", "BOOL": "?"}
    fields = {"FP32": "fp32_contents", "FP64": "fp64_contents", "INT8": "int_contents", "INT16": "int_contents",
              "INT32": "int_contents", "INT64": "int64_contents", "UINT8": "uint_contents",
              "UINT16": "uint_contents", "UINT32": "uint_contents", "UINT64": "uint64_contents",
              "BOOL": "bool_contents", "BYTES": "bytes_contents"}
    result = {}
    for i, o in enumerate(resp.outputs):
        # Typed outputs carry `contents`; the others are their entry of raw_output_contents.
        if not o.HasField("contents"):
            raw = resp.raw_output_contents[i]
            if o.datatype == "BYTES":
                items, pos = [], 0
                while pos < len(raw):
                    n = int.from_bytes(raw[pos:pos + 4], "little")
                    items.append(raw[pos + 4:pos + 4 + n])
                    pos += 4 + n
                arr = np.array(items, dtype=object)
            else:
                arr = np.frombuffer(raw, dtype=dtypes[o.datatype])
        else:
            arr = np.array(list(getattr(o.contents, fields[o.datatype])))
        result[o.name] = (o.datatype, list(o.shape), arr)
    return result


face_x = numpy_helper.to_array(load_tensor(os.path.join(FACE, "test_data_set_0", "input_0.pb")))
face_y0 = numpy_helper.to_array(load_tensor(os.path.join(FACE, "test_data_set_0", "output_0.pb")))


def face_request():
    req = pb.ModelInferRequest(model_name="face")
    req.inputs.append(infer_input("input:0", "FP32", face_x.shape))
    req.raw_input_contents.append(face_x.astype("<f4").tobytes())
    req.outputs.add(name="Identity:0")
    return req


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



def identity_model(name, types):
    """An Identity per datatype (ONNX Identity: the output is the input), for the typed and raw mapping of each."""
    graph = helper.make_graph(
        [helper.make_node("Identity", [f"in_{k}"], [f"out_{k}"]) for k in types], name,
        [helper.make_tensor_value_info(f"in_{k}", t, [2, 3]) for k, t in types.items()],
        [helper.make_tensor_value_info(f"out_{k}", t, [2, 3]) for k, t in types.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    os.makedirs(os.path.join(repo, name, "1"))
    save(model, os.path.join(repo, name, "1", "model.onnx"))


# Every datatype with a typed-contents field in one model; FP16, which travels raw only, in another.
identity_model("types", {"BOOL": TensorProto.BOOL, "INT8": TensorProto.INT8, "UINT16": TensorProto.UINT16,
                         "INT32": TensorProto.INT32, "INT64": TensorProto.INT64, "UINT64": TensorProto.UINT64,
                         "FP64": TensorProto.DOUBLE, "BYTES": TensorProto.STRING})
identity_model("half", {"FP16": TensorProto.FLOAT16})
type_values = {
    "BOOL": np.array([True, False, True, True, False, False]), "INT8": np.array([-128, -1, 0, 1, 100, 127], np.int8),
    "UINT16": np.array([0, 1, 300, 40000, 65535, 7], np.uint16),
    "INT32": np.array([-2 ** 31, -5, 0, 5, 123456, 2 ** 31 - 1], np.int32),
    "INT64": np.array([-2 ** 62, -1, 0, 1, 2 ** 40, 2 ** 62], np.int64),
    "UINT64": np.array([0, 1, 2 ** 33, 2 ** 63, 2 ** 64 - 1, 9], np.uint64),
    "FP64": np.array([0.5, -1.25, 3e300, -0.0, 1e-300, 7.0]),
    "FP16": np.array([0.5, -2, 65504, 1e-3, 0, 3], np.float16),
    "BYTES": np.array([b"", b"a", b"hello", "\u00e9t\u00e9".encode(), b"\x00\xff", b"x" * 40], dtype=object)}
typed_fields = {"BOOL": "bool_contents", "INT8": "int_contents", "UINT16": "uint_contents", "INT32": "int_contents",
                "INT64": "int64_contents", "UINT64": "uint64_contents", "FP64": "fp64_contents",
                "BYTES": "bytes_contents"}


def raw_bytes(datatype, values):
    if datatype == "BYTES":
        return b"".join(len(v).to_bytes(4, "little") + v for v in values)
    if datatype == "BOOL":
        return values.astype(np.uint8).tobytes()
    return values.astype(values.dtype.newbyteorder("<")).tobytes()


access_log = os.path.join(tmp, "access.log")
try:
    # ---------------------------------------------------------------- the repository server (explicit control)
    proc, base, target = start_server(
        "--model-repository", repo, "--model-control-mode", "explicit", "--load-model", "face", "--load-model",
        "affine", "--load-model", "logtf", "--load-model", "broken", "--load-model", "types", "--load-model", "half",
        "--threads", "1",
        "--concurrency", "2", "--max-request-mb", "1", "--access-log", access_log, "--quiet")
    check(target.startswith("127.0.0.1:") and base.startswith("http://"),
          f"prints the HTTP and the gRPC port ({base}, grpc {target})")
    channel = grpc.insecure_channel(target)
    stub = pb_grpc.GRPCInferenceServiceStub(channel)
    try:
        st, r, _ = call(stub.ServerLive, pb.ServerLiveRequest())
        st2, r2, _ = call(stub.ServerReady, pb.ServerReadyRequest())
        check(st == grpc.StatusCode.OK and r.live and st2 == grpc.StatusCode.OK and r2.ready, "ServerLive, ServerReady")
        st, meta, _ = call(stub.ServerMetadata, pb.ServerMetadataRequest())
        check(st == grpc.StatusCode.OK and meta.name == "onyx" and meta.version != "" and
              "model_repository" in meta.extensions,
              f"ServerMetadata: name, version, extensions ({meta.name} {meta.version} {list(meta.extensions)})")

        # Model metadata and readiness, as the HTTP test checks them.
        st, meta, _ = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="affine"))
        check(st == grpc.StatusCode.OK and list(meta.versions) == ["1", "2"] and meta.platform == "onnx" and
              meta.inputs[0].name == "features" and meta.inputs[0].datatype == "FP32" and
              list(meta.inputs[0].shape) == [-1, 4] and [o.name for o in meta.outputs] == ["y", "sum"],
              "ModelMetadata: versions, platform, the served input name, datatype and shape, outputs")
        st, meta1, _ = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="affine", version="1"))
        check(st == grpc.StatusCode.OK and [o.name for o in meta1.outputs] == ["y"], "ModelMetadata of version 1")
        st, _, msg = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="affine", version="3"))
        check(st == grpc.StatusCode.NOT_FOUND and "3" in msg, f"an unknown version -> NOT_FOUND ({msg})")
        st, _, msg = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="nosuch"))
        check(st == grpc.StatusCode.NOT_FOUND and "nosuch" in msg, f"an unknown model -> NOT_FOUND ({msg})")
        st, _, msg = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="broken"))
        check(st == grpc.StatusCode.UNAVAILABLE and "model.onnx" in msg,
              f"a model that failed to load -> UNAVAILABLE with the reason ({msg})")
        ready = {}
        for name, version in (("affine", ""), ("affine", "1"), ("affine", "3"), ("broken", ""), ("nosuch", "")):
            st, r, _ = call(stub.ModelReady, pb.ModelReadyRequest(name=name, version=version))
            ready[(name, version)] = r.ready if st == grpc.StatusCode.OK else st
        check(ready == {("affine", ""): True, ("affine", "1"): True, ("affine", "3"): False, ("broken", ""): False,
                        ("nosuch", ""): False}, f"ModelReady: ready versions true, the rest false ({ready})")

        # Inference, answers checked against the official runtimes.
        st, resp, msg = call(stub.ModelInfer, face_request())
        outs = output_arrays(resp) if resp else {}
        check(st == grpc.StatusCode.OK and list(outs) == ["Identity:0"] and outs["Identity:0"][0] == "FP32" and
              outs["Identity:0"][1] == list(face_y0.shape) and close(outs["Identity:0"][2], face_y0, 1e-4),
              f"face: raw_input_contents in, the one output asked for as raw_output_contents ({msg})")
        x = numpy_helper.to_array(load_tensor(os.path.join(TFLITE, "test_data_set_0", "input_0.pb")))
        ref = numpy_helper.to_array(load_tensor(os.path.join(TFLITE, "test_data_set_0", "output_0.pb")))
        req = pb.ModelInferRequest(model_name="logtf")
        req.inputs.append(infer_input("input_0", "FP32", x.shape, fp32_contents=x.ravel().tolist()))
        st, resp, msg = call(stub.ModelInfer, req)
        check(st == grpc.StatusCode.OK and close(list(output_arrays(resp).values())[0][2], ref, 1e-5),
              f"logtf (TFLite converted at load), typed contents in, matches LiteRT ({msg})")
        rows = REFS["requests"][1]
        st, resp, msg = call(stub.ModelInfer, affine_request(rows, version="1"))
        outs = output_arrays(resp) if resp else {}
        check(st == grpc.StatusCode.OK and resp.model_name == "affine" and resp.model_version == "1" and
              resp.id == "req-2" and outs["y"][1] == [2, 3] and close(outs["y"][2], REFS["v1"][1]["y"]),
              f"affine version 1, typed contents: ONNX Runtime's answer, model version and id echoed ({msg})")
        st, resp, msg = call(stub.ModelInfer, affine_request(rows, raw=True))
        outs = output_arrays(resp) if resp else {}
        check(st == grpc.StatusCode.OK and resp.model_version == "2" and list(outs) == ["y", "sum"] and
              len(resp.raw_output_contents) == 2 and close(outs["y"][2], REFS["v2"][1]["y"]) and
              close(outs["sum"][2], REFS["v2"][1]["sum"]),
              f"affine latest (2), raw contents: every output, raw, ONNX Runtime's answer ({msg})")
        st, resp, msg = call(stub.ModelInfer, affine_request(rows, outputs=["sum"], typed=True))
        check(st == grpc.StatusCode.OK and [o.name for o in resp.outputs] == ["sum"] and
              len(resp.raw_output_contents) == 0 and list(resp.outputs[0].shape) == [2, 1] and
              close(resp.outputs[0].contents.fp32_contents, REFS["v2"][1]["sum"]),
              f"output selection with binary_data=false: only 'sum', in fp32_contents ({msg})")
        req = affine_request(rows, outputs=["sum", "y"])
        req.outputs[1].parameters["binary_data"].bool_param = False
        st, resp, msg = call(stub.ModelInfer, req)
        check(st == grpc.StatusCode.OK and [o.name for o in resp.outputs] == ["sum", "y"] and
              len(resp.raw_output_contents) == 2 and resp.raw_output_contents[1] == b"" and
              close(np.frombuffer(resp.raw_output_contents[0], "<f4"), REFS["v2"][1]["sum"]) and
              close(resp.outputs[1].contents.fp32_contents, REFS["v2"][1]["y"]),
              "mixed: 'sum' raw, 'y' typed; raw_output_contents keeps one entry per output")

        # Every datatype, typed and raw: the Identity models answer what they were sent.
        req = pb.ModelInferRequest(model_name="types")
        for k, field in typed_fields.items():
            values = type_values[k]
            vals = [bool(v) for v in values] if k == "BOOL" else values.tolist()
            req.inputs.append(infer_input(f"in_{k}", k, [2, 3], **{field: vals}))
            req.outputs.add(name=f"out_{k}").parameters["binary_data"].bool_param = False
        st, resp, msg = call(stub.ModelInfer, req)
        outs = output_arrays(resp) if resp else {}
        bad = [k for k in typed_fields if outs.get(f"out_{k}", (None, None, []))[:2] != (k, [2, 3]) or
               list(outs[f"out_{k}"][2]) != list(type_values[k])]
        check(st == grpc.StatusCode.OK and not bad and len(resp.raw_output_contents) == 0 and
              all(o.HasField("contents") for o in resp.outputs),
              f"8 datatypes in typed contents come back typed, unchanged ({msg}{bad})")
        req = pb.ModelInferRequest(model_name="types")
        for k in typed_fields:
            req.inputs.append(infer_input(f"in_{k}", k, [2, 3]))
            req.raw_input_contents.append(raw_bytes(k, type_values[k]))
        st, resp, msg = call(stub.ModelInfer, req)
        got = {o.name: resp.raw_output_contents[i] for i, o in enumerate(resp.outputs)} if resp else {}
        bad = [k for k in typed_fields if got.get(f"out_{k}") != raw_bytes(k, type_values[k])]
        check(st == grpc.StatusCode.OK and not bad and len(resp.outputs) == 8 and
              not any(o.HasField("contents") for o in resp.outputs),
              f"8 datatypes in raw contents come back raw, byte for byte ({msg}{bad})")
        req = pb.ModelInferRequest(model_name="half")
        req.inputs.append(infer_input("in_FP16", "FP16", [2, 3]))
        req.raw_input_contents.append(raw_bytes("FP16", type_values["FP16"]))
        req.outputs.add(name="out_FP16").parameters["binary_data"].bool_param = False
        st, resp, msg = call(stub.ModelInfer, req)
        check(st == grpc.StatusCode.OK and len(resp.raw_output_contents) == 1 and
              resp.raw_output_contents[0] == raw_bytes("FP16", type_values["FP16"]),
              "FP16 has no typed field: it comes back raw even when asked typed")

        # Dynamic batching: concurrent calls to both versions, each answer checked against ONNX Runtime's answer to
        # that request alone.
        jobs = [(v, i) for i in range(16) for v in (1, 2)]
        futures = [(v, i, stub.ModelInfer.future(affine_request(REFS["requests"][i], version=str(v)), timeout=60))
                   for v, i in jobs]
        ok = True
        for v, i, f in futures:
            try:
                outs = output_arrays(f.result())
            except grpc.RpcError as e:
                ok = False
                print("   ", v, i, e.code(), e.details())
                continue
            want = REFS[f"v{v}"][i]
            ok = ok and all(close(outs[k][2], w) for k, w in want.items())
            ok = ok and all(o[1][0] == len(REFS["requests"][i]) for o in outs.values())
        check(ok, "32 concurrent ModelInfer calls (two versions, 1 or 2 rows) each get ONNX Runtime's answer")
        s = metric_series(base)
        for v in ("1", "2"):
            lbl = f'model="affine",version="{v}"'
            runs = s.get(f"onyx_inference_batch_size_count{{{lbl}}}", 0)
            singles = s.get(f'onyx_inference_batch_size_bucket{{{lbl},le="1"}}', 0)
            check(0 < runs and singles < runs and runs < 16 + (1 if v == "1" else 3),
                  f"version {v}: gRPC calls ran in batches of more than one ({runs:.0f} runs, {singles:.0f} of size 1)")
        check(s.get('onyx_inference_requests_total{model="face",version="1",status="success"}') == 1 and
              s.get('onyx_inference_requests_total{model="affine",version="1",status="success"}') == 17,
              "gRPC inferences count in the shared metrics (HTTP /metrics)")

        # Errors: status codes and messages naming the input and the problem.
        def error_of(req):
            st, _, msg = call(stub.ModelInfer, req)
            return st, msg
        INVALID = grpc.StatusCode.INVALID_ARGUMENT
        st, msg = error_of(affine_request(rows, model="nosuch"))
        check(st == grpc.StatusCode.NOT_FOUND and "nosuch" in msg, f"unknown model -> NOT_FOUND ({msg})")
        st, msg = error_of(affine_request(rows, version="7"))
        check(st == grpc.StatusCode.NOT_FOUND and "7" in msg, f"unknown version -> NOT_FOUND ({msg})")
        st, msg = error_of(affine_request(rows, model="broken"))
        check(st == grpc.StatusCode.UNAVAILABLE and "model.onnx" in msg, f"broken model -> UNAVAILABLE ({msg})")
        req = pb.ModelInferRequest(model_name="affine")
        req.inputs.append(infer_input("features", "INT64", [1, 4], int64_contents=[1, 2, 3, 4]))
        st, msg = error_of(req)
        check(st == INVALID and "features" in msg, f"wrong datatype -> INVALID_ARGUMENT naming the input ({msg})")
        st, msg = error_of(affine_request([[1.0, 2.0, 3.0]]))
        check(st == INVALID and "features" in msg and "shape" in msg, f"wrong shape -> INVALID_ARGUMENT ({msg})")
        req = pb.ModelInferRequest(model_name="affine")
        req.inputs.append(infer_input("features", "FP32", [2, 4], fp32_contents=[1, 2, 3, 4]))
        st, msg = error_of(req)
        check(st == INVALID and "features" in msg and "fp32_contents holds 4" in msg and "8" in msg,
              f"too few values for the shape -> INVALID_ARGUMENT ({msg})")
        req = pb.ModelInferRequest(model_name="affine")
        req.inputs.append(infer_input("features", "FP32", [1, 4], fp64_contents=[1, 2, 3, 4]))
        st, msg = error_of(req)
        check(st == INVALID and "features" in msg and "fp64_contents" in msg and "fp32_contents" in msg,
              f"values in another datatype's field -> INVALID_ARGUMENT ({msg})")
        req = affine_request(rows, raw=True)
        req.raw_input_contents[0] = req.raw_input_contents[0][:-4]
        st, msg = error_of(req)
        check(st == INVALID and "features" in msg and "28 bytes" in msg,
              f"short raw contents -> INVALID_ARGUMENT ({msg})")
        req = affine_request(rows, raw=True)
        req.raw_input_contents.append(b"\0" * 8)
        st, msg = error_of(req)
        check(st == INVALID and "raw_input_contents" in msg,
              f"more raw entries than inputs -> INVALID_ARGUMENT ({msg})")
        req = affine_request(rows, raw=True)
        req.inputs[0].contents.fp32_contents.extend([1.0] * 8)
        st, msg = error_of(req)
        check(st == INVALID and "features" in msg and "raw_input_contents" in msg,
              f"typed and raw contents mixed -> INVALID_ARGUMENT ({msg})")
        st, msg = error_of(affine_request([[0.5] * 4] * 9))
        check(st == INVALID and "max_batch_size" in msg, f"batch over max_batch_size -> INVALID_ARGUMENT ({msg})")
        st, msg = error_of(affine_request(rows, name="x"))
        check(st == INVALID and "'x'" in msg, f"an input the model does not have -> INVALID_ARGUMENT ({msg})")
        st, msg = error_of(affine_request(rows, outputs=["nope"]))
        check(st == INVALID and "nope" in msg, f"an output the model does not have -> INVALID_ARGUMENT ({msg})")
        req = pb.ModelInferRequest(model_name="affine")
        req.inputs.append(infer_input("features", "FP17", [1, 4], fp32_contents=[1, 2, 3, 4]))
        st, msg = error_of(req)
        check(st == INVALID and "features" in msg and "FP17" in msg, f"unknown datatype -> INVALID_ARGUMENT ({msg})")
        req = pb.ModelInferRequest(model_name="types")
        for k, field in typed_fields.items():
            values = [300, 2, 3, 4, 5, 6] if k == "INT8" else type_values[k]
            values = [bool(v) for v in values] if k == "BOOL" else list(values)
            req.inputs.append(infer_input(f"in_{k}", k, [2, 3], **{field: values}))
        st, msg = error_of(req)
        check(st == INVALID and "in_INT8" in msg and "300" in msg and "range" in msg,
              f"a value out of INT8's range -> INVALID_ARGUMENT ({msg})")
        req = pb.ModelInferRequest(model_name="half")
        req.inputs.append(infer_input("in_FP16", "FP16", [2, 3], fp32_contents=[0.0] * 6))
        st, msg = error_of(req)
        check(st == INVALID and "in_FP16" in msg and "raw_input_contents" in msg,
              f"FP16 in typed contents -> INVALID_ARGUMENT pointing to raw contents ({msg})")
        big = np.zeros((1, 300000), np.float32)
        req = pb.ModelInferRequest(model_name="affine")
        req.inputs.append(infer_input("features", "FP32", big.shape))
        req.raw_input_contents.append(big.tobytes())
        st, msg = error_of(req)
        check(st == grpc.StatusCode.RESOURCE_EXHAUSTED,
              f"a message over --max-request-mb -> RESOURCE_EXHAUSTED ({msg})")

        # The repository extension.
        st, index, _ = call(stub.RepositoryIndex, pb.RepositoryIndexRequest())
        states = {(m.name, m.version): m.state for m in index.models}
        check(st == grpc.StatusCode.OK and states.get(("face", "1")) == "READY" and
              states.get(("affine", "1")) == "READY" and states.get(("affine", "2")) == "READY" and
              states.get(("logtf", "1")) == "READY" and states.get(("types", "1")) == "READY" and
              states.get(("half", "1")) == "READY",
              f"RepositoryIndex: face, affine v1+v2, logtf, types and half READY ({states})")
        broken = [m for m in index.models if m.name == "broken"]
        check(len(broken) == 1 and broken[0].state == "UNAVAILABLE" and "model.onnx" in broken[0].reason,
              "RepositoryIndex: the broken model is UNAVAILABLE with the reason")
        st, ready_index, _ = call(stub.RepositoryIndex, pb.RepositoryIndexRequest(ready=True))
        check(st == grpc.StatusCode.OK and len(ready_index.models) == 6 and
              all(m.state == "READY" for m in ready_index.models), "RepositoryIndex ready=true: the 6 ready versions")
        cycle_ok = True
        for _ in range(3):
            st, _, _ = call(stub.RepositoryModelUnload, pb.RepositoryModelUnloadRequest(model_name="affine"))
            _, r, _ = call(stub.ModelReady, pb.ModelReadyRequest(name="affine"))
            st3, msg = error_of(affine_request(rows))
            cycle_ok = (cycle_ok and st == grpc.StatusCode.OK and not r.ready and
                        st3 == grpc.StatusCode.UNAVAILABLE and "unloaded" in msg)
            st, _, _ = call(stub.RepositoryModelLoad, pb.RepositoryModelLoadRequest(model_name="affine"))
            _, r, _ = call(stub.ModelReady, pb.ModelReadyRequest(name="affine"))
            cycle_ok = cycle_ok and st == grpc.StatusCode.OK and r.ready
        check(cycle_ok, "RepositoryModelUnload -> not ready, inference UNAVAILABLE naming the unload; "
                        "RepositoryModelLoad -> ready (3x)")
        st, resp, _ = call(stub.ModelInfer, affine_request(REFS["requests"][3]))
        check(st == grpc.StatusCode.OK and close(output_arrays(resp)["y"][2], REFS["v2"][3]["y"]),
              "affine answers after the reloads")
        st, _, msg = call(stub.RepositoryModelLoad, pb.RepositoryModelLoadRequest(model_name="nosuch"))
        check(st == grpc.StatusCode.NOT_FOUND and "nosuch" in msg,
              f"loading a model not in the repository -> NOT_FOUND ({msg})")
        st, _, msg = call(stub.RepositoryModelLoad, pb.RepositoryModelLoadRequest(model_name="broken"))
        check(st == INVALID and "model.onnx" in msg,
              f"loading a broken model -> INVALID_ARGUMENT with the reason ({msg})")
        req = pb.RepositoryModelLoadRequest(model_name="affine")
        req.parameters["config"].string_param = "{}"
        st, _, msg = call(stub.RepositoryModelLoad, req)
        check(st == INVALID and "config" in msg, f"a load with a config override -> INVALID_ARGUMENT ({msg})")

        # Request ids: the client's echoed in the initial metadata, one made up otherwise.
        _, call_info = stub.ServerMetadata.with_call(pb.ServerMetadataRequest(),
                                                     metadata=[("x-request-id", "grpc-id-42")])
        _, call_info2 = stub.ServerMetadata.with_call(pb.ServerMetadataRequest())
        id1 = dict(call_info.initial_metadata()).get("x-request-id")
        id2 = dict(call_info2.initial_metadata()).get("x-request-id", "")
        check(id1 == "grpc-id-42" and id2 not in ("", "grpc-id-42"), f"x-request-id echoed or made up ({id1}, {id2})")
    finally:
        channel.close()
        code = stop_server(proc)
    check(code == 0, f"SIGTERM stops the server, HTTP and gRPC, with exit 0 (got {code})")
    lines = [json.loads(line) for line in open(access_log)]
    grpc_lines = [r for r in lines if r["method"] == "GRPC"]
    mine = [r for r in grpc_lines if r["request_id"] == "grpc-id-42"]
    infer_codes = {r["status"] for r in grpc_lines if r["path"] == "/inference.GRPCInferenceService/ModelInfer"}
    check(len(grpc_lines) > 60 and len(mine) == 1 and
          mine[0]["path"] == "/inference.GRPCInferenceService/ServerMetadata" and mine[0]["status"] == 200 and
          mine[0]["remote"] == "127.0.0.1" and mine[0]["bytes_out"] > 0 and "duration_ms" in mine[0] and
          {200, 400, 404, 503} <= infer_codes,
          f"access log: {len(grpc_lines)} gRPC lines with ids, RPC paths, remote, HTTP-equivalent statuses "
          f"({sorted(infer_codes)})")

    # ---------------------------------------------------------------- token auth
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write("s3cret-token\n")
    proc, base, target = start_server(os.path.join(FACE, "model.onnx"), "--name", "face", "--auth-token-file",
                                      token_file, "--http-threads", "2", "--quiet")
    channel = grpc.insecure_channel(target)
    stub = pb_grpc.GRPCInferenceServiceStub(channel)
    try:
        good = [("authorization", "Bearer s3cret-token")]
        st, _, msg = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="face"))
        check(st == grpc.StatusCode.UNAUTHENTICATED and "Bearer" in msg, f"no token -> UNAUTHENTICATED ({msg})")
        st, _, _ = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="face"),
                        [("authorization", "Bearer s3cret-tokeN")])
        check(st == grpc.StatusCode.UNAUTHENTICATED, "wrong token -> UNAUTHENTICATED")
        st, _, _ = call(stub.ModelInfer, face_request(), [("authorization", "Bearer s3cret-token-and-more")])
        st2, _, _ = call(stub.RepositoryIndex, pb.RepositoryIndexRequest())
        st3, _, _ = call(stub.ServerMetadata, pb.ServerMetadataRequest())
        check(st == st2 == st3 == grpc.StatusCode.UNAUTHENTICATED,
              "inference with a longer token, index and server metadata without -> UNAUTHENTICATED")
        st, r, _ = call(stub.ServerLive, pb.ServerLiveRequest())
        st2, r2, _ = call(stub.ServerReady, pb.ServerReadyRequest())
        check(st == st2 == grpc.StatusCode.OK and r.live and r2.ready, "ServerLive and ServerReady stay open")
        st, _, _ = call(stub.ModelMetadata, pb.ModelMetadataRequest(name="face"), good)
        st2, resp, _ = call(stub.ModelInfer, face_request(), good)
        check(st == st2 == grpc.StatusCode.OK and close(output_arrays(resp)["Identity:0"][2], face_y0, 1e-4),
              "the right token -> OK and the right answer")
        # Calls wait in the run queue, not for a thread: more concurrent calls than --http-threads all get answers.
        futures = [stub.ModelInfer.future(face_request(), metadata=good, timeout=60) for _ in range(24)]
        codes = []
        for f in futures:
            try:
                codes.append("OK" if close(output_arrays(f.result())["Identity:0"][2], face_y0, 1e-4) else "wrong")
            except grpc.RpcError as e:
                codes.append(e.code().name)
        check(codes == ["OK"] * 24, f"24 concurrent calls with --http-threads 2: all answered ({set(codes)})")
        st, _, msg = call(stub.RepositoryModelLoad, pb.RepositoryModelLoadRequest(model_name="face"), good)
        check(st == grpc.StatusCode.FAILED_PRECONDITION and "explicit" in msg,
              f"load without explicit model control -> FAILED_PRECONDITION ({msg})")
    finally:
        channel.close()
        check(stop_server(proc) == 0, "auth server stops cleanly")

    # ---------------------------------------------------------------- TLS (self-signed certificate)
    cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    proc, base, target = start_server(os.path.join(FACE, "model.onnx"), "--name", "face", "--tls-cert", cert,
                                      "--tls-key", key, "--quiet")
    try:
        check(base.startswith("https://"), f"TLS: HTTPS and grpcs announced ({base})")
        creds = grpc.ssl_channel_credentials(root_certificates=open(cert, "rb").read())
        with grpc.secure_channel(target, creds) as tls_channel:
            tls_stub = pb_grpc.GRPCInferenceServiceStub(tls_channel)
            st, r, _ = call(tls_stub.ServerReady, pb.ServerReadyRequest())
            st2, resp, msg = call(tls_stub.ModelInfer, face_request())
            check(st == st2 == grpc.StatusCode.OK and close(output_arrays(resp)["Identity:0"][2], face_y0, 1e-4),
                  f"gRPC over TLS: readiness and inference ({msg})")
        with grpc.insecure_channel(target) as plain:
            st, _, _ = call(pb_grpc.GRPCInferenceServiceStub(plain).ServerLive, pb.ServerLiveRequest(), timeout=5)
        check(st == grpc.StatusCode.UNAVAILABLE, f"plaintext gRPC on the TLS port gets no answer ({st})")
    finally:
        check(stop_server(proc) == 0, "TLS server stops cleanly")

    # ---------------------------------------------------------------- queue limit and graceful shutdown
    proc, base, target = start_server(os.path.join(DATA, "affine_v1.onnx"), "--name", "affine", "--max-batch-size",
                                      "8", "--max-queue-delay-us", "700000", "--max-queue", "2", "--quiet")
    channel = grpc.insecure_channel(target)
    stub = pb_grpc.GRPCInferenceServiceStub(channel)
    try:
        futures = []
        for i in range(4):
            futures.append(stub.ModelInfer.future(affine_request(REFS["requests"][i], name="x"), timeout=60))
            time.sleep(0.05)
        codes, busy = [], []
        for f in futures:
            try:
                f.result()
                codes.append("OK")
            except grpc.RpcError as e:
                codes.append(e.code().name)
                busy.append(e.details())
        check(sorted(codes) == ["OK", "OK", "RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED"] and
              all("--max-queue" in m for m in busy),
              f"over --max-queue -> RESOURCE_EXHAUSTED naming the limit ({codes})")
        pending = stub.ModelInfer.future(affine_request(REFS["requests"][5], name="x"), timeout=60)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        try:
            outs = output_arrays(pending.result())
            answered = close(outs["y"][2], REFS["v1"][5]["y"])
        except grpc.RpcError as e:
            answered = False
            print("   ", e.code(), e.details())
        check(answered, "SIGTERM: the gRPC request in flight is still answered")
    finally:
        channel.close()
        code = stop_server(proc)
    check(code == 0, f"and the server then exits 0 (got {code})")

    # ---------------------------------------------------------------- command line
    with socket.socket() as busy_socket:
        busy_socket.bind(("127.0.0.1", 0))
        busy_socket.listen()
        port = busy_socket.getsockname()[1]
        r = subprocess.run([ONYX, "serve", os.path.join(FACE, "model.onnx"), "--port", "0", "--grpc-port", str(port)],
                           capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and str(port) in r.stderr, f"a busy --grpc-port -> exit 1 naming it ({r.stderr.strip()})")
    r = subprocess.run([ONYX, "serve", os.path.join(FACE, "model.onnx"), "--grpc-port", "70000"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 2, "--grpc-port out of range -> exit 2")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
