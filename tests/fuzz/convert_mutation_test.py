#!/usr/bin/python3
"""Bad input never crashes or hangs `onyx convert`: mutated TFLite FlatBuffers, TF.js graph-models (model.json and
weight shards), frozen GraphDefs, SavedModel folders (one file of a copy mutated), Keras .h5, .keras archives and
TF.js layers models must each end with exit status 0-3 within 20 s, with at most one line on stderr (the error,
naming the file). The committed inputs of tests/data/fuzz_regressions (crashes this test once found) run first.

Mutations: bytes flipped, cut or inserted (every format); JSON values replaced by hostile ones (numbers, strings,
lists, objects, null, huge or negative sizes, deeply nested values), keys deleted, lists duplicated; FlatBuffer
offsets and vector lengths (aligned 32-bit words) set to extreme values; protobuf varints and lengths set huge or off
by one (found by walking the message); HDF5 8-byte offsets/lengths set to extreme values; the entries of a .keras
zip (config.json, model.weights.h5) mutated and the archive rewritten.

usage: convert_mutation_test.py ONYX SOURCE_DIR SHARED_DIR [--cases N] [--jobs J] [--seed S] [--formats a,b]
       [--keep DIR]
  N mutants per format (default 200), fixed seed (default 20261201): reproducible. Formats: tflite, tfjs, pb,
  saved_model, h5, keras, tfjs_layers. Failing mutants are kept (path printed) for reproduction.
"""
import argparse
import concurrent.futures
import copy
import glob
import io
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

FORMATS = ["tflite", "tfjs", "pb", "saved_model", "h5", "keras", "tfjs_layers"]


# ---------------------------------------------------------------------------------------------------------------
# Generic and format-aware mutators. Each takes bytes and the random generator and returns new bytes.

def mutate_bytes(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(max(1, len(data)))
        op = rng.random()
        if op < 0.5 and data:
            data[at] = rng.randrange(256)
        elif op < 0.7:
            del data[at:at + rng.randint(1, 16)]
        elif op < 0.85:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            data = data[:at]
    return bytes(data)


def mutate_words(data, rng, width):
    """Aligned little-endian words (FlatBuffer uoffset/soffset/vector lengths, HDF5 addresses and lengths) set to
    extreme values or nudged."""
    data = bytearray(data)
    if len(data) < width:
        return bytes(data)
    mask = (1 << (8 * width)) - 1
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(data) // width) * width
        old = int.from_bytes(data[at:at + width], "little")
        value = rng.choice([mask, mask >> 1, 1 << (8 * width - 1), 0, len(data), len(data) - 1, 1 << 24, 1 << 31,
                            (old + 4) & mask, (old - 4) & mask, (old * 2) & mask, 0x10000])
        data[at:at + width] = (value & mask).to_bytes(width, "little")
    if rng.random() < 0.3:  # FlatBuffer vtable entries are 16-bit field offsets.
        at = rng.randrange(len(data) // 2) * 2
        data[at:at + 2] = rng.choice([0xFFFF, 0x7FFF, 0x8000, 0, 4]).to_bytes(2, "little")
    return bytes(data)


def read_varint(data, pos):
    value, shift = 0, 0
    while pos < len(data) and shift < 70:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7
    return None, pos


def encode_varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def protobuf_varints(data, start=0, end=None, depth=0, out=None, budget=None):
    """Positions (start, end, kind) of the varint values and length prefixes of a protobuf message, sub-messages
    included (a length-delimited field is walked as a message when it parses as one). Returns None when data[start:
    end] is not a message."""
    if out is None:
        out = []
    if budget is None:
        budget = [20000]
    end = len(data) if end is None else end
    pos, found = start, []
    while pos < end:
        key, p = read_varint(data, pos)
        if key is None or p > end or key >> 3 == 0:
            return None
        wire = key & 7
        if wire == 0:
            value, q = read_varint(data, p)
            if value is None or q > end:
                return None
            found.append((p, q, "varint"))
            pos = q
        elif wire == 1:
            pos = p + 8
        elif wire == 5:
            pos = p + 4
        elif wire == 2:
            length, q = read_varint(data, p)
            if length is None or q + length > end:
                return None
            found.append((p, q, "length"))
            found.append((q, q + length, "payload"))
            pos = q + length
        else:
            return None
    if pos != end:
        return None
    for item in found:
        if budget[0] <= 0:
            break
        if item[2] == "payload":
            if depth < 12 and item[1] > item[0]:
                protobuf_varints(data, item[0], item[1], depth + 1, out, budget)
        else:
            out.append(item)
            budget[0] -= 1
    return out


def mutate_protobuf(data, rng, positions):
    if not positions:
        return mutate_bytes(data, rng)
    data = bytes(data)
    # Replace from the back so that earlier positions stay valid.
    for start, end, kind in sorted(rng.sample(positions, min(len(positions), rng.randint(1, 3))), reverse=True):
        old, _ = read_varint(data, start)
        choices = [(1 << 64) - 1, (1 << 63) - 1, 1 << 63, 1 << 32, (1 << 31) - 1, 1 << 31, 1 << 40, 0]
        if kind == "length":
            choices += [old + 1, max(0, old - 1), old + 1000]
        new = encode_varint(rng.choice(choices))
        if rng.random() < 0.1:
            new = b"\xff" * 10 + b"\x01"  # over-long varint
        data = data[:start] + new + data[end:]
    return data


HOSTILE_JSON = [0, -1, 1, 3, 1.5, -2.5, 1e308, -1e308, 2 ** 31, 2 ** 62, 2 ** 63, 2 ** 64 + 1, -(2 ** 63), 10 ** 30,
                "", "x", "-1", "0", "9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e400",
                "DT_FLOAT", "DT_STRING", "DT_INVALID", "float32", "string", "../../../etc/passwd", "/dev/zero",
                [], [1], [-1], [0, 0], [2 ** 62, 2 ** 62], [-(2 ** 40)], ["a"], [None], [[]], {}, {"a": 1},
                {"class_name": "Nope", "config": {}}, None, True, False]
DEEP = "\x00DEEP\x00"


def hostile(rng):
    # A fresh copy: later mutations edit what they insert, which must never change (or nest into) the constants.
    return copy.deepcopy(rng.choice(HOSTILE_JSON))


def json_nodes(value, path, out):
    out.append(path)
    if isinstance(value, dict):
        for k, v in value.items():
            json_nodes(v, path + (k,), out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            json_nodes(v, path + (i,), out)


def json_get(root, path):
    for k in path:
        root = root[k]
    return root


def mutate_json(text, rng):
    try:
        root = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        return mutate_bytes(text, rng)
    deep = False
    for _ in range(rng.randint(1, 3)):
        nodes = []
        json_nodes(root, (), nodes)
        path = rng.choice(nodes[1:] or nodes)
        if not path:
            root = hostile(rng)
            continue
        parent = json_get(root, path[:-1])
        key = path[-1]
        op = rng.random()
        if op < 0.65:
            parent[key] = hostile(rng)
        elif op < 0.75:
            parent[key] = DEEP
            deep = True
        elif op < 0.85 and isinstance(parent, dict):
            del parent[key]
        elif op < 0.95 and isinstance(parent, list):
            parent.insert(key, parent[key])
        else:
            value = parent[key]
            if isinstance(value, str) and value.lstrip("-").isdigit():
                parent[key] = str(-int(value) or -1)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                parent[key] = -value * 1000003 - 1
            else:
                parent[key] = hostile(rng)
    out = json.dumps(root)
    if deep:
        depth = rng.choice([200, 5000, 100000])
        nest = rng.choice([("[" * depth, "]" * depth), ('{"a":' * depth, "}" * depth)])
        out = out.replace(json.dumps(DEEP), nest[0] + "1" + nest[1], 1)
    return out.encode()


def mutate_zip(data, rng, entry_mutator):
    """A .keras archive: one entry mutated (bytes, JSON or HDF5 words) and the archive rewritten, or the zip's
    own bytes (headers, sizes, compressed streams) mutated."""
    if rng.random() < 0.35:
        return mutate_words(data, rng, 4) if rng.random() < 0.5 else mutate_bytes(data, rng)
    src = zipfile.ZipFile(io.BytesIO(data))
    names = src.namelist()
    target = rng.choice(names)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in names:
            content = src.read(name)
            if name == target:
                content = entry_mutator(name, content, rng)
            dst.writestr(name, content)
    return out.getvalue()


def keras_entry(name, content, rng):
    if name.endswith(".json"):
        return mutate_json(content, rng)
    if name.endswith(".h5"):
        return mutate_words(content, rng, 8) if rng.random() < 0.5 else mutate_bytes(content, rng)
    return mutate_bytes(content, rng)


# ---------------------------------------------------------------------------------------------------------------
# Seeds and mutant builders: each builder writes one mutant under `folder` and returns the path to convert.

class Seeds:
    def __init__(self, source_dir, shared_dir):
        data = os.path.join(source_dir, "tests", "data")
        self.tflite = sorted(glob.glob(os.path.join(data, "tflite_ops", "*", "model.tflite")))
        # TF.js graph-models with weights (a mutated shard must matter); every case has a (maybe empty) shard.
        self.tfjs = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(data, "tf_ops", "*", "model.json"))
                           if os.path.getsize(os.path.join(os.path.dirname(p), "weights.bin")) > 0)
        self.pb = sorted(glob.glob(os.path.join(shared_dir, "models", "tf", "*.pb")))
        self.saved_model = sorted(os.path.dirname(p) for p in glob.glob(
            os.path.join(shared_dir, "models", "tf", "saved_model", "*", "*", "saved_model.pb")))
        self.h5 = sorted(glob.glob(os.path.join(data, "keras", "*", "model.h5")))
        self.keras = sorted(glob.glob(os.path.join(data, "keras", "*", "model.keras")))
        self.tfjs_layers = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(data, "keras", "*", "model.json")))
        self._pb_positions = {}

    def pb_positions(self, path, data):
        if path not in self._pb_positions:
            self._pb_positions[path] = protobuf_varints(data) or []
        return self._pb_positions[path]


def build_tflite(seeds, rng, folder):
    src = rng.choice(seeds.tflite)
    data = open(src, "rb").read()
    data = mutate_words(data, rng, 4) if rng.random() < 0.6 else mutate_bytes(data, rng)
    path = os.path.join(folder, "model.tflite")
    open(path, "wb").write(data)
    return path, os.path.basename(os.path.dirname(src))


def build_tfjs_folder(rng, src_dir, folder, shard_names):
    """Copies a model.json + shards folder, mutating model.json (mostly) or one shard."""
    for name in os.listdir(src_dir):
        if os.path.isfile(os.path.join(src_dir, name)) and (name == "model.json" or name in shard_names):
            shutil.copyfile(os.path.join(src_dir, name), os.path.join(folder, name))
    model = os.path.join(folder, "model.json")
    if rng.random() < 0.8 or not shard_names:
        text = open(model, "rb").read()
        open(model, "wb").write(mutate_json(text, rng) if rng.random() < 0.75 else mutate_bytes(text, rng))
    else:
        shard = os.path.join(folder, rng.choice(sorted(shard_names)))
        data = open(shard, "rb").read()
        open(shard, "wb").write(data[:rng.randrange(len(data) + 1)] if rng.random() < 0.5 else mutate_bytes(data, rng))
    return model


def build_tfjs(seeds, rng, folder):
    src = rng.choice(seeds.tfjs)
    return build_tfjs_folder(rng, src, folder, {"weights.bin"}), os.path.basename(src)


def build_tfjs_layers(seeds, rng, folder):
    src = rng.choice(seeds.tfjs_layers)
    shards = {n for n in os.listdir(src) if n.endswith(".bin")}
    return build_tfjs_folder(rng, src, folder, shards), os.path.basename(src)


def build_pb(seeds, rng, folder):
    src = rng.choice(seeds.pb)
    data = open(src, "rb").read()
    if rng.random() < 0.7:
        data = mutate_protobuf(data, rng, seeds.pb_positions(src, data))
    else:
        data = mutate_bytes(data, rng)
    path = os.path.join(folder, "model.pb")
    open(path, "wb").write(data)
    return path, os.path.basename(src)


def build_saved_model(seeds, rng, folder):
    src = rng.choice(seeds.saved_model)
    dst = os.path.join(folder, "saved_model")
    shutil.copytree(src, dst)
    for root, dirs, files in os.walk(dst):
        os.chmod(root, 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    files = ["saved_model.pb"] * 3
    if os.path.isdir(os.path.join(dst, "variables")):
        files += ["variables/variables.index"] * 3 + ["variables/" + n for n in os.listdir(
            os.path.join(dst, "variables")) if n.startswith("variables.data")]
    target = rng.choice(files)
    path = os.path.join(dst, target)
    data = open(path, "rb").read()
    if target.endswith(".pb") and rng.random() < 0.7:
        data = mutate_protobuf(data, rng, seeds.pb_positions(os.path.join(src, target), data))
    elif target.endswith(".index") and rng.random() < 0.5:
        # The SSTable footer (block handles as varints) and the block trailers live at the end.
        tail = max(0, len(data) - 60)
        data = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(tail, len(data)) if data else 0
            if at < len(data):
                data[at] = rng.choice([0xFF, 0x80, 0x7F, 0, rng.randrange(256)])
        data = bytes(data)
    else:
        data = mutate_bytes(data, rng)
    open(path, "wb").write(data)
    return dst, f"{os.path.basename(os.path.dirname(src))}/{target}"


def build_h5(seeds, rng, folder):
    src = rng.choice(seeds.h5)
    data = open(src, "rb").read()
    data = mutate_words(data, rng, 8) if rng.random() < 0.5 else mutate_bytes(data, rng)
    path = os.path.join(folder, "model.h5")
    open(path, "wb").write(data)
    return path, os.path.basename(os.path.dirname(src))


def build_keras(seeds, rng, folder):
    src = rng.choice(seeds.keras)
    data = mutate_zip(open(src, "rb").read(), rng, keras_entry)
    path = os.path.join(folder, "model.keras")
    open(path, "wb").write(data)
    return path, os.path.basename(os.path.dirname(src))


BUILDERS = {"tflite": build_tflite, "tfjs": build_tfjs, "pb": build_pb, "saved_model": build_saved_model,
            "h5": build_h5, "keras": build_keras, "tfjs_layers": build_tfjs_layers}


# ---------------------------------------------------------------------------------------------------------------

def convert(onyx, model, out):
    """None when onyx behaved (exit 0-3 in time, at most one stderr line naming the file), else the reason."""
    try:
        # A corrupt .h5 may loop inside libhdf5: onyx kills its reader child after ONYX_MAX_HDF5_READ_SECONDS.
        env = dict(os.environ, ONYX_MAX_HDF5_READ_SECONDS="8")
        p = subprocess.run([onyx, "convert", model, "-o", out, "--quiet"], capture_output=True, timeout=20, env=env)
    except subprocess.TimeoutExpired:
        return "timeout (20 s)"
    err = p.stderr.decode(errors="replace").strip()
    lines = err.splitlines()
    if p.returncode not in (0, 1, 2, 3):
        return f"exit {p.returncode}: {err[-600:]}"
    if len(lines) > 1:
        return f"exit {p.returncode}, {len(lines)} stderr lines: {err[-600:]}"
    if p.returncode != 0 and (not lines or os.path.basename(model.rstrip('/')) not in lines[0]):
        return f"exit {p.returncode}, error does not name the file: {err[-300:]}"
    return None


def regression_inputs(source_dir):
    """tests/data/fuzz_regressions/NAME: a model file, or a folder (TF.js model.json, SavedModel)."""
    root = os.path.join(source_dir, "tests", "data", "fuzz_regressions")
    out = []
    for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        path = os.path.join(root, name)
        if name.startswith(".") or name.endswith(".md"):
            continue
        if os.path.isdir(path):
            if os.path.exists(os.path.join(path, "model.json")):
                path = os.path.join(path, "model.json")
            elif not os.path.exists(os.path.join(path, "saved_model.pb")):
                continue
        out.append(path)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onyx")
    ap.add_argument("source_dir")
    ap.add_argument("shared_dir")
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--keep", default=None, help="folder for failing mutants (default: a new temporary folder)")
    args = ap.parse_args()
    onyx = os.path.abspath(args.onyx)
    seeds = Seeds(args.source_dir, args.shared_dir)
    work = tempfile.mkdtemp(prefix="onyx_convert_fuzz_")
    keep = args.keep or os.path.join(work, "failures")
    os.makedirs(keep, exist_ok=True)
    failures, counts = [], {}

    # Regression inputs first: each must give a clean error (they were all crashes once).
    for i, path in enumerate(regression_inputs(args.source_dir)):
        why = convert(onyx, path, os.path.join(work, f"regression_{i}.onnx"))
        counts["regressions"] = counts.get("regressions", 0) + 1
        if why:
            failures.append(f"regression {os.path.relpath(path, args.source_dir)}: {why}")

    # Mutants are built sequentially (one generator per format: adding a format or a case keeps the others' mutants
    # unchanged) and converted `jobs` at a time.
    def run_one(job):
        fmt, index, folder, model, origin = job
        why = convert(onyx, model, os.path.join(folder, "out.onnx"))
        if why:
            kept = os.path.join(keep, f"{fmt}_{index}")
            shutil.copytree(folder, kept, dirs_exist_ok=True)
            return f"{fmt} #{index} ({origin}; kept in {kept}): {why}"
        shutil.rmtree(folder, ignore_errors=True)
        return None

    formats = [f for f in args.formats.split(",") if f]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for fmt in formats:
            pool_seeds = getattr(seeds, fmt)
            if not pool_seeds:
                print(f"{fmt}: no seed files found, skipped")
                continue
            rng = random.Random(f"{args.seed}:{fmt}")
            jobs = []
            for index in range(args.cases):
                folder = os.path.join(work, f"{fmt}_{index}")
                os.makedirs(folder)
                model, origin = BUILDERS[fmt](seeds, rng, folder)
                jobs.append((fmt, index, folder, model, origin))
            results = list(pool.map(run_one, jobs))
            bad = [r for r in results if r]
            failures += bad
            counts[fmt] = args.cases
            print(f"{fmt}: {args.cases} mutants of {len(pool_seeds)} seeds, {len(bad)} failed", flush=True)

    for f in failures:
        print("FAIL", f)
    total = sum(counts.values())
    print(f"{total - len(failures)} passed, {len(failures)} failed ({counts})")
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
