#!/usr/bin/python3
"""Measures what `onyx quantize` costs in accuracy on the benchmark models (issue 16, item 4; not a ctest, takes
minutes):

- ResNet-50 and MobileNet-v2 static QDQ (uint8 activations, per-channel int8 weights), calibrated on 50 images and
  evaluated on 200 others (Debian's python3-skimage sample images and /usr/share/pixmaps, augmented by random crops,
  flips and colour jitter; calibration and evaluation come from disjoint source images): top-1 agreement and
  top-5 overlap of the quantized model with the float model;
- the BERT-like encoder, dynamic: output cosine on 200 random token sequences (a fixed random embedding table);
- the BERT-like encoder, static with entropy calibration on 512 samples: peak RSS of `onyx quantize`.

Both models run in onyx (the Python module), the float one at the same settings.

usage: PYTHONPATH=build/python bench/quantize_quality.py ONYX [--models DIR] [--work DIR] [--threads N]
       [--only resnet50,mobilenet_v2,bert] [--method minmax|percentile|entropy] [--skip-bert-calibration]
       [--bert-samples 512]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time

import numpy as np
from onnx import numpy_helper

import onyx

MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)


def source_images():
    from skimage import io
    import skimage.data
    files = sorted(glob.glob(os.path.join(os.path.dirname(skimage.data.__file__), "*.png")) +
                   glob.glob(os.path.join(os.path.dirname(skimage.data.__file__), "*.jpg")) +
                   glob.glob("/usr/share/pixmaps/*.png") + glob.glob("/usr/share/backgrounds/**/*.jpg", recursive=True) +
                   glob.glob("/usr/share/backgrounds/**/*.png", recursive=True))
    images = []
    for f in files:
        try:
            im = io.imread(f)
        except Exception:
            continue
        if im.ndim == 2:
            im = np.stack([im] * 3, -1)
        if im.ndim != 3 or im.shape[0] < 64 or im.shape[1] < 64:
            continue
        im = im[..., :3].astype(np.float32)
        if im.max() > 1.5:
            im /= 255.0 if im.max() <= 255 else im.max()
        images.append((os.path.basename(f), im))
    return images


def augment(im, rng):
    from skimage.transform import resize
    h, w = im.shape[:2]
    side = int(min(h, w) * rng.uniform(0.35, 1.0))
    y, x = rng.integers(0, h - side + 1), rng.integers(0, w - side + 1)
    crop = im[y:y + side, x:x + side]
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    crop = resize(crop, (224, 224), anti_aliasing=True).astype(np.float32)
    crop = np.clip(crop * rng.uniform(0.8, 1.2) + rng.uniform(-0.1, 0.1), 0, 1)
    return ((crop.transpose(2, 0, 1) - MEAN) / STD)[None].astype(np.float32)


def image_sets(work, n_cal, n_eval):
    images = source_images()
    cal_src, eval_src = images[0::2], images[1::2]  # disjoint source images
    rng = np.random.default_rng(0)
    cal_dir = os.path.join(work, "images_calibration")
    if not os.path.isdir(cal_dir):  # made once; the evaluation images do not depend on it (their own seed)
        for i in range(n_cal):
            d = os.path.join(cal_dir, "test_data_set_%d" % i)
            os.makedirs(d)
            x = augment(cal_src[i % len(cal_src)][1], rng)
            with open(os.path.join(d, "input_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(x, "input").SerializeToString())
    rng = np.random.default_rng(1)
    evaluation = [augment(eval_src[i % len(eval_src)][1], rng) for i in range(n_eval)]
    print("images: %d sources (%d for calibration, %d for evaluation), %d calibration and %d evaluation samples" %
          (len(images), len(cal_src), len(eval_src), n_cal, n_eval), flush=True)
    return cal_dir, evaluation


def session(path, threads):
    so = onyx.SessionOptions()
    so.intra_op_num_threads = threads
    return onyx.InferenceSession(path, so)


def quantize_cli(onyx_bin, model, out, *args):
    start = time.time()
    proc = subprocess.Popen([onyx_bin, "quantize", model, "-o", out, "--report", out + ".json", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    stdout, stderr = proc.communicate()
    if status != 0:
        sys.exit("onyx quantize failed: " + stderr.decode())
    with open(out + ".json") as f:
        report = json.load(f)
    return report, time.time() - start, usage.ru_maxrss / 1024.0


def cnn(onyx_bin, name, models, work, cal_dir, evaluation, threads, method):
    model = os.path.join(models, name + ".onnx")
    out = os.path.join(work, name + "_qdq_%s.onnx" % method)
    report, secs, rss = quantize_cli(onyx_bin, model, out, "--mode", "static", "--calibration", cal_dir,
                                     "--per-channel", "--threads", str(threads), "--calibrate-method", method)
    f, q = session(model, threads), session(out, threads)
    top1 = top5 = 0
    cos, margins, errors, same = [], [], [], []
    for x in evaluation:
        a = f.run(None, {"input": x})[0].ravel()
        b = q.run(None, {"input": x})[0].ravel()
        top1 += int(np.argmax(a) == np.argmax(b))
        same.append(np.argmax(a) == np.argmax(b))
        top5 += len(set(np.argsort(-a)[:5]) & set(np.argsort(-b)[:5])) / 5.0
        cos.append(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))))
        top2 = np.sort(a)[-2:]
        margins.append(float(top2[1] - top2[0]))
        errors.append(float(np.abs(a - b).mean()))
    n = len(evaluation)
    # The benchmark models have random weights: their logits can be nearly tied, and then any perturbation moves
    # the argmax. Agreement among the images whose float top-1 leads the runner-up by more than the quantized
    # model's mean absolute output error tells quantization noise from ties.
    clear = [s for s, m in zip(same, margins) if m > np.mean(errors)]
    print("%s static QDQ (uint8/int8 per-channel, %s, %d calibration images, quantize %.0f s, peak RSS %.0f MiB): "
          "top-1 agreement %.2f%%, top-5 overlap %.2f%%, mean output cosine %.5f over %d held-out images "
          "(target: top-1 >= 99%%, top-5 >= 95%%)" %
          (name, method, report["calibration_samples"], secs, rss, 100.0 * top1 / n, 100.0 * top5 / n, np.mean(cos), n),
          flush=True)
    print("  %s: median float top-1 margin %.3g vs mean |output error| %.3g; top-1 agreement %.2f%% on the %d images "
          "whose margin exceeds that error" % (name, np.median(margins), np.mean(errors),
                                               100.0 * np.mean(clear) if clear else float("nan"), len(clear)),
          flush=True)


def bert_inputs(n, seed):
    rng = np.random.default_rng(seed)
    table = rng.normal(0, 1, size=(1000, 768)).astype(np.float32)
    position = rng.normal(0, 0.2, size=(128, 768)).astype(np.float32)
    out = []
    for _ in range(n):
        ids = rng.integers(0, 1000, size=128)
        x = table[ids] + position
        x = (x - x.mean(-1, keepdims=True)) / x.std(-1, keepdims=True)
        out.append(x[None].astype(np.float32))
    return out


def bert(onyx_bin, models, work, threads, calibrate, samples):
    model = os.path.join(models, "bert_like_enc12.onnx")
    out = os.path.join(work, "bert_dynamic.onnx")
    report, secs, rss = quantize_cli(onyx_bin, model, out, "--mode", "dynamic", "--per-channel")
    f, q = session(model, threads), session(out, threads)
    name = f.get_inputs()[0].name
    a_all, b_all, cos = [], [], []
    for x in bert_inputs(200, 1):
        a = f.run(None, {name: x})[0].ravel().astype(np.float64)
        b = q.run(None, {name: x})[0].ravel().astype(np.float64)
        cos.append(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    print("bert_like_enc12 dynamic (per-channel int8 weights, %s): output cosine min %.6f, mean %.6f over 200 "
          "random token sequences (target >= 0.999)" %
          (" ".join("%s %d" % kv for kv in report["quantized_nodes"].items()), min(cos), np.mean(cos)), flush=True)
    if not calibrate:
        return
    cal_dir = os.path.join(work, "bert_calibration_%d" % samples)
    if not os.path.isdir(cal_dir):
        os.makedirs(cal_dir)
        np.save(os.path.join(cal_dir, name + ".npy"), np.concatenate(bert_inputs(samples, 2), 0))  # stacked samples
    out = os.path.join(work, "bert_static_entropy.onnx")
    report, secs, rss = quantize_cli(onyx_bin, model, out, "--mode", "static", "--calibration", cal_dir,
                                     "--calibrate-method", "entropy", "--threads", str(threads))
    o = report["outputs"][0]
    print("bert_like_enc12 static entropy calibration on %d samples: peak RSS %.0f MiB (target < 2048), %.0f s, "
          "%d sessions, %d observers in %.1f MiB; calibration-set output cosine %.5f" %
          (report["calibration_samples"], rss, secs, report["calibration_sessions"],
           sum(1 for t in report["tensors"] if t["kind"] == "activation"), report["observer_bytes"] / 2**20,
           o["cosine"]), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("onyx")
    ap.add_argument("--models", default=os.path.expanduser("~/.cache/onyx-bench/models"))
    ap.add_argument("--work", default="/tmp/onyx-quantize-quality")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--calibration", type=int, default=50)
    ap.add_argument("--evaluation", type=int, default=200)
    ap.add_argument("--only", default="resnet50,mobilenet_v2,bert")
    ap.add_argument("--skip-bert-calibration", action="store_true")
    ap.add_argument("--method", default="minmax", help="CNN calibration: minmax, percentile or entropy")
    ap.add_argument("--bert-samples", type=int, default=512)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    only = args.only.split(",")
    if "resnet50" in only or "mobilenet_v2" in only:
        cal_dir, evaluation = image_sets(args.work, args.calibration, args.evaluation)
        for name in ("resnet50", "mobilenet_v2"):
            if name in only:
                cnn(args.onyx, name, args.models, args.work, cal_dir, evaluation, args.threads, args.method)
    if "bert" in only:
        bert(args.onyx, args.models, args.work, args.threads, not args.skip_bert_calibration, args.bert_samples)


if __name__ == "__main__":
    main()
