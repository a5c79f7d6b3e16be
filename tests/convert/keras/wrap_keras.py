#!/usr/bin/python3
"""Re-wraps each TF.js layers model of the corpus (gen_corpus.mjs) as a Keras 2 HDF5 file (model.h5) and a
Keras 3 archive (model.keras) holding the same architecture and weights, in the layouts Keras itself writes:

  model.h5:     attrs model_config (JSON), keras_version, backend; group model_weights with attr layer_names and,
                per top-level layer, a group with attr weight_names and datasets <layer>/<weight>:0.
  model.keras:  zip of config.json (module / class_name / config / registered_name per layer, Keras 3 inbound
                nodes with __keras_tensor__ arguments), metadata.json, model.weights.h5 (layers/<snake_case class>
                [_k]/vars/<i>, with cell/, forward_layer/, backward_layer/, layer/ for wrapped layers).

Cases with meta "only" (gen_numpy_cases.py: semantics of one Keras version) get only those forms.
Models whose config uses hard_sigmoid are not wrapped as .keras: Keras 3 redefined it (relu6(x+3)/6 instead of
0.2x+0.5), so the TF.js reference would not be that file's behaviour.

usage: /usr/bin/python3 tests/convert/keras/wrap_keras.py tests/data/keras
"""
import io
import json
import os
import re
import sys
import zipfile

import h5py
import numpy as np


def load_tfjs(d):
    mj = json.load(open(os.path.join(d, "model.json")))
    topo = mj["modelTopology"]
    model = topo.get("model_config", topo)
    weights = []
    for group in mj["weightsManifest"]:
        data = b"".join(open(os.path.join(d, p), "rb").read() for p in group["paths"])
        off = 0
        for w in group["weights"]:
            n = int(np.prod(w["shape"])) if w["shape"] else 1
            q = w.get("quantization")
            if q is None:
                arr = np.frombuffer(data, np.float32, n, off)
                off += 4 * n
            elif q["dtype"] == "float16":
                arr = np.frombuffer(data, np.float16, n, off).astype(np.float32)
                off += 2 * n
            else:
                dt = np.uint8 if q["dtype"] == "uint8" else np.uint16
                raw = np.frombuffer(data, dt, n, off)
                off += raw.itemsize * n
                arr = (raw.astype(np.float64) * q["scale"] + q["min"]).astype(np.float32)
            weights.append((w["name"], arr.reshape(w["shape"])))
    return model, weights


def layers_of(model):
    cfg = model["config"]
    return cfg if isinstance(cfg, list) else cfg["layers"]


def layer_name(layer):
    return layer.get("config", {}).get("name") or layer.get("name")


def inner_names(layer):
    """Names owning weights inside a layer: itself, or every layer of a nested model."""
    if layer["class_name"] in ("Sequential", "Model", "Functional"):
        out = []
        for l in layers_of(layer):
            out += inner_names(l)
        return out
    return [layer_name(layer)]


def write_h5(path, model, weights):
    by_owner = {}
    for name, arr in weights:
        by_owner.setdefault(name.split("/")[0], []).append((name, arr))
    with h5py.File(path, "w") as f:
        f.attrs["keras_version"] = b"2.15.0"
        f.attrs["backend"] = b"tensorflow"
        f.attrs["model_config"] = json.dumps(model).encode("utf8")
        mw = f.create_group("model_weights")
        names = [layer_name(l) for l in layers_of(model)]
        mw.attrs["layer_names"] = np.array([n.encode("utf8") for n in names])
        mw.attrs["backend"] = b"tensorflow"
        mw.attrs["keras_version"] = b"2.15.0"
        for layer in layers_of(model):
            g = mw.create_group(layer_name(layer))
            ws = []
            for owner in inner_names(layer):
                ws += by_owner.get(owner, [])
            g.attrs["weight_names"] = np.array([(n + ":0").encode("utf8") for n, _ in ws], dtype="S")
            for n, arr in ws:
                g.create_dataset(n + ":0", data=arr)


def snake(name):
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def k3_tensor(ref):
    return {"class_name": "__keras_tensor__",
            "config": {"shape": None, "dtype": "float32", "keras_history": [ref[0], ref[1], ref[2]]}}


MERGE = {"Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot"}
RNN = {"LSTM", "GRU", "SimpleRNN"}


def k3_layer(layer):
    cls = layer["class_name"]
    if cls in ("Sequential", "Model", "Functional"):
        out = k3_model(layer)
    else:
        cfg = dict(layer["config"])
        if "batch_input_shape" in cfg:
            cfg["batch_shape"] = cfg.pop("batch_input_shape")
        if "layer" in cfg:
            inner = cfg["layer"]
            cfg["layer"] = {"module": "keras.layers", "class_name": inner["class_name"], "config": inner["config"],
                            "registered_name": None}
        out = {"module": "keras.layers", "class_name": cls, "config": cfg, "registered_name": None}
    out["name"] = layer_name(layer)
    nodes = []
    for node in layer.get("inbound_nodes", []):
        refs = [k3_tensor(e) for e in node]
        kwargs = {}
        for e in node:
            for k, v in (e[3] if len(e) > 3 and isinstance(e[3], dict) else {}).items():
                is_ref = isinstance(v, list) and len(v) == 3 and isinstance(v[0], str)
                kwargs[k] = k3_tensor(v) if is_ref else v
        if cls == "MultiHeadAttention":  # Keras 3 passes query and value positionally
            nodes.append({"args": refs + [kwargs.pop("value")], "kwargs": kwargs})
        elif cls in MERGE:
            nodes.append({"args": [refs], "kwargs": {}})
        elif cls in RNN and len(refs) > 1:
            nodes.append({"args": [refs[0]], "kwargs": {"initial_state": refs[1:]}})
        elif cls in ("Sequential", "Model", "Functional") and len(refs) > 1:
            nodes.append({"args": [refs], "kwargs": {}})
        else:
            nodes.append({"args": refs, "kwargs": {}})
    out["inbound_nodes"] = nodes
    return out


def k3_model(model):
    cls = model["class_name"]
    cfg = model["config"]
    if cls == "Sequential":
        layers = layers_of(model)
        out_layers = []
        if layers and layers[0]["class_name"] != "InputLayer":
            first = layers[0]["config"]
            out_layers.append({"module": "keras.layers", "class_name": "InputLayer", "registered_name": None,
                               "config": {"batch_shape": first["batch_input_shape"],
                                          "dtype": first.get("dtype", "float32"),
                                          "name": layer_name(layers[0]) + "_input"}})
        out_layers += [k3_layer(l) for l in layers]
        for l in out_layers:
            l.pop("inbound_nodes", None)
        return {"module": "keras", "class_name": "Sequential", "registered_name": None,
                "config": {"name": cfg.get("name", "sequential"), "trainable": True, "layers": out_layers}}
    return {"module": "keras", "class_name": "Functional", "registered_name": None,
            "config": {"name": cfg["name"], "trainable": True, "layers": [k3_layer(l) for l in cfg["layers"]],
                       "input_layers": cfg["input_layers"], "output_layers": cfg["output_layers"]}}


def write_k3_weights(h5, model, by_owner, prefix):
    used = {}
    for layer in layers_of(model):
        key = snake("Functional" if layer["class_name"] == "Model" else layer["class_name"])
        if key in used:
            used[key] += 1
            key = "%s_%d" % (key, used[key])
        else:
            used[key] = 0
        path = prefix + "/layers/" + key
        if layer["class_name"] in ("Sequential", "Model", "Functional"):
            h5.require_group(path + "/vars")
            write_k3_weights(h5, layer, by_owner, path)
            continue
        ws = [arr for _, arr in by_owner.get(layer_name(layer), [])]
        cls = layer["class_name"]
        if cls in RNN:
            groups = [(path + "/cell/vars", ws)]
            h5.require_group(path + "/vars")
        elif cls == "Bidirectional":
            half = len(ws) // 2
            groups = [(path + "/forward_layer/cell/vars", ws[:half]), (path + "/backward_layer/cell/vars", ws[half:])]
        elif cls == "TimeDistributed":
            groups = [(path + "/layer/vars", ws)]
        elif cls == "MultiHeadAttention":  # EinsumDense sublayers, in creation order
            per = 2 if layer["config"].get("use_bias", True) else 1
            h5.require_group(path + "/vars")
            groups = [(path + "/%s/vars" % sub, ws[i * per:(i + 1) * per])
                      for i, sub in enumerate(["query_dense", "key_dense", "value_dense", "output_dense"])]
        else:
            groups = [(path + "/vars", ws)]
        for gpath, arrs in groups:
            g = h5.require_group(gpath)
            for i, arr in enumerate(arrs):
                g.create_dataset(str(i), data=arr)


def write_keras3(path, model, weights):
    by_owner = {}
    for name, arr in weights:
        by_owner.setdefault(name.split("/")[0], []).append((name, arr))
    buf = io.BytesIO()
    with h5py.File(buf, "w") as h5:
        h5.require_group("vars")
        write_k3_weights(h5, model, by_owner, "")
    with zipfile.ZipFile(path, "w") as z:
        # A fixed timestamp keeps regenerated archives byte-identical.
        def put(name, data):
            z.writestr(zipfile.ZipInfo(name, date_time=(2024, 11, 30, 0, 0, 0)), data)
        put("metadata.json", json.dumps({"keras_version": "3.6.0", "date_saved": "2024-11-30@00:00:00"}))
        put("config.json", json.dumps(k3_model(model)))
        put("model.weights.h5", buf.getvalue())


def main():
    root = sys.argv[1]
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        if not os.path.isfile(os.path.join(d, "model.json")):
            continue
        model, weights = load_tfjs(d)
        meta = json.load(open(os.path.join(d, "meta.json")))
        if meta.get("only"):  # semantics of one Keras version only (gen_numpy_cases.py)
            forms = list(meta["only"])
            if "keras" in forms:
                write_keras3(os.path.join(d, "model.keras"), model, weights)
            if "h5" in forms:
                write_h5(os.path.join(d, "model.h5"), model, weights)
            meta["forms"] = forms
            json.dump(meta, open(os.path.join(d, "meta.json"), "w"), indent=1)
            print(name, " ".join(forms))
            continue
        forms = ["tfjs"]
        if "h5" not in meta.get("skip", []):
            write_h5(os.path.join(d, "model.h5"), model, weights)
            forms.append("h5")
        if "hard_sigmoid" not in json.dumps(model) and "keras" not in meta.get("skip", []):
            write_keras3(os.path.join(d, "model.keras"), model, weights)
            forms.append("keras")
        elif os.path.exists(os.path.join(d, "model.keras")):
            os.remove(os.path.join(d, "model.keras"))
        meta["forms"] = forms
        json.dump(meta, open(os.path.join(d, "meta.json"), "w"), indent=1)
        print(name, " ".join(forms))


if __name__ == "__main__":
    main()
