#!/usr/bin/python3
"""What `onyx quantize --mode static` costs in accuracy on TRAINED classifiers and natural photographs (issue 16;
not a ctest, takes minutes). bench/quantize_quality.py measures the benchmark ResNet-50/MobileNet-v2, whose weights
are random (no model hub here); this script uses the trained models of /work/shared/models instead:

- mnv1: MobileNet-v1 0.25/128 (TFLite, ImageNet, 1001 classes; input 128x128 RGB in [-1, 1]); Google's own
  uint8 TFLite model of it (mobilenet_v1_0.25_128_quant.tflite, quantization-aware trained) is measured against the
  same float model as a reference point;
- nsfw: nsfwjs MobileNet-v2 (TF.js layers model, 5 classes; 224x224 RGB in [0, 1]);
- nsfw_mid: nsfwjs "mid" MobileNet-v2 (TF.js graph model, 5 classes; same preprocessing);
- ppocr: PaddleOCR's text-direction classifier (2 classes; 48x192 NCHW, (x - 0.5) / 0.5), on photographs that are
  no text at all: out-of-distribution inputs, so it shows only whether quantization keeps the float decision.

Images: natural photographs shipped by Debian packages (python3-skimage's data, scipy's face/ascent, matplotlib's
grace_hopper, the photographs of jigzo-data's puzzles, lomiri-wallpapers-16.04 and mate-backgrounds' nature
wallpapers); the source photos are split into two disjoint halves, one for calibration and one for evaluation, and
each set is made of random crops (35-100% of the short side), horizontal flips and small brightness/contrast
jitter of its own photos. Each model is converted with `onyx convert` and quantized with `onyx quantize --mode
static --per-channel` for each calibration method (onyx quantize folds BatchNormalization, Pad and MatMul + Add
itself and corrects the biases; --quantize-options passes e.g. --no-bias-correction; --prefold quantizes the model
optimized by `onyx run --opt-level extended --optimized-model` instead, and the converted one once too), and the float and int8 models run in onyx (the Python module) on the same evaluation images:
top-1 agreement, top-5 overlap (top-2 for the 5-class models), output cosine, and the float top-1 margin of the
images whose top-1 flipped. With --ort N, the onyx-quantized models also run in ONNX Runtime (onnxruntime-node, at
optimization disabled and all) on the first N images: same top-1 as onyx's int8?

usage: PYTHONPATH=build/python bench/quantize_quality_trained.py ONYX [--work DIR] [--models SHARED_MODELS]
       [--only mnv1,nsfw,nsfw_mid,ppocr] [--methods minmax,percentile,entropy] [--calibration 100]
       [--evaluation 250] [--exclude MODEL:NODE+NODE,...] [--op-types MODEL:OP+OP,...] [--prefold] [--ort N]
       [--threads N] [--quantize-options='--no-bias-correction ...']
needs: apt-get install python3-skimage jigzo-data lomiri-wallpapers-16.04 mate-backgrounds (missing photos are
skipped; node and ~/.cache/onyx-bench/ort/node_modules for --ort)
"""
import argparse
import glob
import io
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
from onnx import numpy_helper

import onyx

SKIMAGE_PHOTOS = ["astronaut.png", "chelsea.png", "coffee.png", "rocket.jpg", "motorcycle_left.png",
                  "hubble_deep_field.jpg", "retina.jpg", "camera.png", "moon.png", "coins.png", "brick.png",
                  "grass.png", "gravel.png", "ihc.png"]
WALLPAPER_PHOTOS = [  # the photographs among the packages' wallpapers (the others are drawings and gradients)
    "Bridge_by_Sander_Klootwijk.jpg", "Dragonfly_by_Bolly.jpg", "Kleiber_by_Lukas_Baubkus.jpg",
    "Picture_0B_by_freespace.jpg", "Picture_1A_by_freespace.jpg", "Wine_by_Jakkub_Mede.jpg",
    "aitzgorri_by_Aitzol_Berasategi.jpg", "free_by_Peter_Nerlich.jpg", "friends_by_Aitzol_Berasategi.jpg",
    "life_by_Aitzol_Berasategi.jpg", "picosdeeuropa_by_Aitzol_Berasategi.jpg", "seeding_by_Clements_Engelhardt.jpg",
    "sunset_by_Aitzol_Berasategi.jpg"] + ["mate/nature/%s.jpg" % n for n in (
        "Aqua", "Blinds", "Dune", "FreshFlower", "Garden", "GreenMeadow", "LadyBird", "RainDrops", "Storm", "TwoWings",
        "Wood", "YellowFlower")]


def as_rgb01(im):
    im = np.asarray(im)
    if im.ndim == 2:
        im = np.stack([im] * 3, -1)
    im = im[..., :3]
    return im.astype(np.float32) / (255.0 if im.dtype == np.uint8 else max(1.0, float(im.max())))


def jigzo_photos():
    """jigzo's .pzl files hold a text header, a thumbnail, a piece mask (.png) and the photo (.jpg, the picture in
    its top-left WxH corner, given by the header's `image 0 0 W H` line)."""
    from skimage import io as skio
    out = []
    for f in sorted(glob.glob("/usr/share/games/jigzo/puzzles/*/*.pzl")):
        data = open(f, "rb").read()
        size = re.search(rb"\nimage 0 0 (\d+) (\d+)", data)
        photo = [m for m in re.finditer(rb"([\w-]+)\.jpg\n(\d+)\n", data) if not m.group(1).endswith(b"-t")]
        if not size or not photo:  # (...-t.jpg is the thumbnail)
            continue
        w, h = int(size.group(1)), int(size.group(2))
        start = photo[0].end()
        im = skio.imread(io.BytesIO(data[start:start + int(photo[0].group(2))]))
        out.append(("jigzo/" + os.path.basename(f).split("-")[0], as_rgb01(im[:h, :w])))
    return out


def source_photos():
    from skimage import io as skio
    import skimage.data
    photos = []
    skdir = os.path.dirname(skimage.data.__file__)
    for name in SKIMAGE_PHOTOS:
        if os.path.exists(os.path.join(skdir, name)):
            photos.append(("skimage/" + name, as_rgb01(skio.imread(os.path.join(skdir, name)))))
    try:  # scipy.misc's bundled copies (scipy.datasets would download them)
        import warnings
        import scipy.misc
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            photos.append(("scipy/face", as_rgb01(scipy.misc.face())))
            photos.append(("scipy/ascent", as_rgb01(scipy.misc.ascent().astype(np.uint8))))
    except Exception:
        pass
    hopper = "/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg"
    if os.path.exists(hopper):
        photos.append(("matplotlib/grace_hopper", as_rgb01(skio.imread(hopper))))
    photos += jigzo_photos()
    for name in WALLPAPER_PHOTOS:
        path = os.path.join("/usr/share/backgrounds", name)
        if os.path.exists(path):
            im = skio.imread(path)
            step = max(1, min(im.shape[:2]) // 1024)  # wallpapers are up to 5K: decimate before cropping
            photos.append(("backgrounds/" + name, as_rgb01(im[::step, ::step])))
    return photos


def split_sources(photos):
    """Disjoint calibration and evaluation photos: a fixed shuffle, then alternate."""
    order = np.random.default_rng(12345).permutation(len(photos))
    shuffled = [photos[i] for i in order]
    return shuffled[0::2], shuffled[1::2]


def crops(sources, n, seed, aspect):
    """n random crops (scale, position, flip, brightness/contrast) as (source name, crop HxWx3 in [0,1])."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        name, im = sources[i % len(sources)]
        h, w = im.shape[:2]
        ch = int(min(h, w / aspect) * rng.uniform(0.35, 1.0))
        cw = int(ch * aspect)
        y, x = rng.integers(0, h - ch + 1), rng.integers(0, w - cw + 1)
        crop = im[y:y + ch, x:x + cw]
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        out.append((name, crop, rng.uniform(0.85, 1.15), rng.uniform(-0.06, 0.06)))
    return out


def prepare(crop_list, size):
    from skimage.transform import resize
    out = []
    for _, crop, gain, shift in crop_list:
        x = resize(crop, size, anti_aliasing=True).astype(np.float32)
        out.append(np.clip((x - 0.5) * gain + 0.5 + shift, 0, 1))
    return out


# name: (source relative to the shared models folder, size (H, W), input layout and scaling, top-k for overlap)
MODELS = {
    "mnv1": ("tflite/quant/mobilenet_v1_0.25_128.tflite", (128, 128), lambda x: (x * 2 - 1)[None], 5),
    "nsfw": ("tfjs/layers/nsfwjs_mobilenet_v2/model.json", (224, 224), lambda x: x[None], 2),
    "nsfw_mid": ("tfjs/graph/nsfwjs_mobilenet_v2_mid/model.json", (224, 224), lambda x: x[None], 2),
    "ppocr": ("onnx/ch_ppocr_mobile_v2.0_cls_infer.onnx", (48, 192),
              lambda x: ((x - 0.5) / 0.5).transpose(2, 0, 1)[None], 1),
}


def run(cmd):
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), proc.returncode, proc.stderr.decode()))
    return proc.stdout.decode()


def float_model(onyx_bin, shared, name, work):
    src = os.path.join(shared, MODELS[name][0])
    if src.endswith(".onnx"):
        return src
    out = os.path.join(work, name + ".onnx")
    if not os.path.exists(out):
        run([onyx_bin, "convert", src, "-o", out, "--quiet"])
    return out


def folded_model(onyx_bin, path, work, name, input_name, sample):
    """The model after onyx's level-extended graph optimizations (BatchNormalization folded into Conv, Pad into
    Conv, MatMul + Add into Gemm), written by `onyx run --optimized-model`: what ONNX Runtime's quantization tool
    does first (its pre-processing optimizes the model). Quantizing a Conv whose output a BatchNormalization still
    rescales per channel gives that pre-BN tensor one per-tensor activation scale for channels of very different
    ranges. None when the optimized model holds operators outside the default domain (not portable)."""
    import onnx
    out = os.path.join(work, name + "_folded.onnx")
    run([onyx_bin, "run", path, "--opt-level", "extended", "--optimized-model", out, "--input",
         "%s=%s" % (input_name, sample)])
    if any(n.domain not in ("", "ai.onnx") for n in onnx.load(out).graph.node):
        return None
    return out


def count_nodes(path, op_type):
    import onnx
    return sum(n.op_type == op_type for n in onnx.load(path).graph.node)


def session(path, threads):
    so = onyx.SessionOptions()
    so.intra_op_num_threads = threads
    return onyx.InferenceSession(path, so)


def write_calibration(path, input_name, tensors):
    import shutil
    for d in (path, path + ".tmp"):  # always anew: the crops depend on which photos are installed
        shutil.rmtree(d, ignore_errors=True)
    tmp = path + ".tmp"
    for i, x in enumerate(tensors):
        d = os.path.join(tmp, "test_data_set_%d" % i)
        os.makedirs(d)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, input_name).SerializeToString())
    os.rename(tmp, path)


def outputs(sess, input_name, tensors):
    return np.stack([sess.run(None, {input_name: x})[0].ravel().astype(np.float64) for x in tensors])


def metrics(a, b, k):
    """a, b: [N, C] float and quantized outputs."""
    top1 = np.argmax(a, 1) == np.argmax(b, 1)
    overlap = np.mean([len(set(np.argsort(-x)[:k]) & set(np.argsort(-y)[:k])) / k for x, y in zip(a, b)])
    cos = np.sum(a * b, 1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    srt = np.sort(a, 1)
    margin = srt[:, -1] - srt[:, -2]
    return {"top1": 100.0 * top1.mean(), "topk": 100.0 * overlap, "cos_mean": float(cos.mean()),
            "cos_min": float(cos.min()), "max_abs": float(np.abs(a - b).max()),
            "flips": [(int(i), float(margin[i])) for i in np.nonzero(~top1)[0]]}


def fmt(m, k):
    s = "top-1 %6.2f%%" % m["top1"]
    if k > 1:
        s += "  top-%d %6.2f%%" % (k, m["topk"])
    s += "  cosine mean %.5f min %.5f  max|d| %.4f" % (m["cos_mean"], m["cos_min"], m["max_abs"])
    if m["flips"]:
        s += "  (flipped images' float top-1 margin: %s)" % ", ".join("%.3f" % f for _, f in m["flips"][:6])
    return s


def tflite_quant_reference(onyx_bin, shared, work, evaluation, ref, threads):
    """Google's uint8 MobileNet-v1 (QAT) converted by onyx: input uint8 with scale 1/128, zero point 128; output
    uint8 probabilities, scale 1/256."""
    out = os.path.join(work, "mnv1_tflite_quant.onnx")
    if not os.path.exists(out):
        run([onyx_bin, "convert", os.path.join(shared, "tflite/quant/mobilenet_v1_0.25_128_quant.tflite"), "-o", out,
             "--quiet"])
    s = session(out, threads)
    name = s.get_inputs()[0].name
    q = [np.clip(np.round(x * 2 * 128), 0, 255).astype(np.uint8)[None] for x in evaluation]  # (2x-1)*128+128
    b = np.stack([s.run(None, {name: x})[0].ravel().astype(np.float64) / 256.0 for x in q])
    # uint8 probabilities tie: count a top-1 as kept when the float top-1 is among the tied maxima
    tied = np.mean([b[i, np.argmax(ref[i])] == b[i].max() for i in range(len(b))]) * 100.0
    return metrics(ref, b, 5), tied


ORT_SCRIPT = r"""
import fs from 'fs';
import { createRequire } from 'module';
const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');
const [model, inputName, shapeJson, inFile, outFile, level] = process.argv.slice(2);
const shape = JSON.parse(shapeJson);
const per = shape.reduce((a, b) => a * b, 1);
const buf = fs.readFileSync(inFile);
const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
const sess = await ort.InferenceSession.create(model, { graphOptimizationLevel: level, intraOpNumThreads: 1 });
const res = [];
for (let i = 0; i < all.length / per; i++) {
  const x = new ort.Tensor('float32', all.slice(i * per, (i + 1) * per), shape);
  const out = await sess.run({ [inputName]: x });
  res.push(Array.from(out[sess.outputNames[0]].data));
}
fs.writeFileSync(outFile, JSON.stringify(res));
"""


def ort_outputs(work, model, input_name, tensors, level):
    script = os.path.join(work, "ort_run.mjs")
    with open(script, "w") as f:
        f.write(ORT_SCRIPT)
    inputs = os.path.join(work, "ort_inputs.bin")
    np.stack(tensors).astype(np.float32).tofile(inputs)
    result = os.path.join(work, "ort_outputs.json")
    env = dict(os.environ, NODE_PATH=os.path.expanduser("~/.cache/onyx-bench/ort/node_modules"))
    proc = subprocess.run(["node", script, model, input_name, json.dumps(list(tensors[0].shape)), inputs, result,
                           level],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        print("  ONNX Runtime failed: " + proc.stderr.decode()[-400:])
        return None
    with open(result) as f:
        return np.array(json.load(f), np.float64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onyx")
    ap.add_argument("--models", default="/work/shared/models")
    ap.add_argument("--work", default="/tmp/onyx-quantize-quality-trained")
    ap.add_argument("--only", default="mnv1,nsfw,nsfw_mid,ppocr")
    ap.add_argument("--methods", default="minmax,percentile,entropy")
    ap.add_argument("--calibration", type=int, default=100)
    ap.add_argument("--evaluation", type=int, default=250)
    ap.add_argument("--exclude", default="", help="MODEL:NODE+NODE,... nodes to keep in float (an extra run per item)")
    ap.add_argument("--op-types", default="", help="MODEL:OP+OP,... operator set for an extra run per item")
    ap.add_argument("--ort", type=int, default=0, help="run the int8 models in ONNX Runtime on N images")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--prefold", action="store_true",
                    help="quantize the model optimized by onyx run --opt-level extended (and the converted one once)")
    ap.add_argument("--no-fold", action="store_true", help="(the default now; kept for old command lines)")
    ap.add_argument("--quantize-options", default="",
                    help="extra options for every onyx quantize run, e.g. '--no-bias-correction --no-prepare'")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)

    photos = source_photos()
    cal_src, eval_src = split_sources(photos)
    print("photos: %d distinct (%d for calibration, %d for evaluation; disjoint); %d calibration and %d evaluation "
          "crops" % (len(photos), len(cal_src), len(eval_src), args.calibration, args.evaluation), flush=True)
    print("  calibration: " + ", ".join(n for n, _ in cal_src))
    print("  evaluation:  " + ", ".join(n for n, _ in eval_src), flush=True)

    extra = {}
    for spec, key in ((args.exclude, "--exclude"), (args.op_types, "--op-types")):
        for item in filter(None, spec.split(",")):
            model, value = item.split(":", 1)
            extra.setdefault(model, []).append((key, value.replace("+", ",")))

    for name in args.only.split(","):
        src, size, pre, k = MODELS[name]
        aspect = size[1] / size[0]
        cal = [pre(x) for x in prepare(crops(cal_src, args.calibration, 1, aspect), size)]
        evaluation_raw = prepare(crops(eval_src, args.evaluation, 2, aspect), size)
        evaluation = [pre(x) for x in evaluation_raw]
        fpath = float_model(args.onyx, args.models, name, args.work)
        fs = session(fpath, args.threads)
        input_name = fs.get_inputs()[0].name
        cal_dir = os.path.join(args.work, "calibration_%s_%d" % (name, args.calibration))
        write_calibration(cal_dir, input_name, cal)
        ref = outputs(fs, input_name, evaluation)
        srt = np.sort(ref, 1)
        print("\n%s (%s): float top-1 probability median %.3f; margin to the runner-up median %.3f, %d of %d "
              "images under 0.01" % (name, src, np.median(srt[:, -1]), np.median(srt[:, -1] - srt[:, -2]),
                                     int(np.sum(srt[:, -1] - srt[:, -2] < 0.01)), len(ref)), flush=True)
        methods = args.methods.split(",")
        sample = os.path.join(cal_dir, "test_data_set_0", "input_0.pb")
        qmodel = fpath if not args.prefold else folded_model(args.onyx, fpath, args.work, name, input_name, sample) or fpath
        runs = []  # (label, model to quantize, method, extra options)
        if qmodel != fpath and count_nodes(qmodel, "BatchNormalization") < count_nodes(fpath, "BatchNormalization"):
            runs.append(("unfolded " + methods[0], fpath, methods[0], []))
        runs += [(m, qmodel, m, []) for m in methods]
        runs += [(methods[0] + " %s %s" % e, qmodel, methods[0], [e]) for e in extra.get(name, [])]
        for label, model, method, opts in runs:
            tag = re.sub(r"[^A-Za-z0-9]+", "_", label)[-48:]
            qpath = os.path.join(args.work, "%s_qdq_%s.onnx" % (name, tag))
            start = time.time()
            cmd = [args.onyx, "quantize", model, "-o", qpath, "--mode", "static", "--calibration", cal_dir,
                   "--per-channel", "--calibrate-method", method, "--report", qpath + ".json", "--quiet"]
            for key, value in opts:
                cmd += [key, value]
            cmd += args.quantize_options.split()
            run(cmd)
            secs = time.time() - start
            qout = outputs(session(qpath, args.threads), input_name, evaluation)
            m = metrics(ref, qout, k)
            print("  onyx int8 %-24s %s  [quantize %.0f s]" % (label, fmt(m, k), secs), flush=True)
            for level in ("disabled", "all") if args.ort and not opts else ():
                o = ort_outputs(args.work, qpath, input_name, evaluation[:args.ort], level)
                if o is not None:
                    same = np.mean(np.argmax(o, 1) == np.argmax(qout[:args.ort], 1)) * 100.0
                    print("    ONNX Runtime 1.30 (optimization %s), same int8 model, first %d images: top-1 equal to "
                          "onyx's on %.1f%%, max |onyx - ORT| %.2e; ORT int8 vs float top-1 %.1f%%" %
                          (level, args.ort, same, np.abs(o - qout[:args.ort]).max(),
                           100.0 * np.mean(np.argmax(o, 1) == np.argmax(ref[:args.ort], 1))), flush=True)
        if name == "mnv1":
            m, tied = tflite_quant_reference(args.onyx, args.models, args.work, evaluation_raw, ref, args.threads)
            print("  Google's uint8 TFLite (QAT) %-24s %s; float top-1 among its tied maxima %.2f%%" %
                  ("", fmt(m, k), tied), flush=True)


if __name__ == "__main__":
    main()
