#!/usr/bin/python3
"""Exports torchvision's classification, segmentation and video models (random weights, seed 0, opset 17, batch 1)
for bench/torchvision/compare.sh: architectures the four benchmark models do not cover (DenseNet's pre-activation
BatchNormalization, EfficientNet's SiLU and squeeze-excitation, Inception's padded average pools, ConvNeXt, Swin
and MaxViT attention, ShuffleNet's channel shuffle, 3-D convolutions, segmentation heads with bilinear Resize).

    /usr/bin/python3 bench/torchvision/export_models.py [OUT_DIR [NAME...]]
        (default OUT_DIR ~/.cache/onyx-bench/torchvision; existing files are kept)

Needs Debian's python3-torch and python3-torchvision (0.14)."""
import os
import sys

import torch
import torchvision

M = torchvision.models
# name: (constructor, input shape)
SPECS = {
    "alexnet": (M.alexnet, (1, 3, 224, 224)),
    "convnext_tiny": (M.convnext_tiny, (1, 3, 224, 224)),
    "deeplabv3_mobilenet_v3_large": (M.segmentation.deeplabv3_mobilenet_v3_large, (1, 3, 256, 256)),
    "densenet121": (M.densenet121, (1, 3, 224, 224)),
    "efficientnet_b0": (M.efficientnet_b0, (1, 3, 224, 224)),
    "efficientnet_v2_s": (M.efficientnet_v2_s, (1, 3, 224, 224)),
    "fcn_resnet50": (M.segmentation.fcn_resnet50, (1, 3, 256, 256)),
    "googlenet": (M.googlenet, (1, 3, 224, 224)),
    "inception_v3": (M.inception_v3, (1, 3, 299, 299)),
    "lraspp_mobilenet_v3_large": (M.segmentation.lraspp_mobilenet_v3_large, (1, 3, 256, 256)),
    "maxvit_t": (M.maxvit_t, (1, 3, 224, 224)),
    "mnasnet1_0": (M.mnasnet1_0, (1, 3, 224, 224)),
    "mobilenet_v3_large": (M.mobilenet_v3_large, (1, 3, 224, 224)),
    "r3d_18": (M.video.r3d_18, (1, 3, 16, 112, 112)),
    "regnet_y_800mf": (M.regnet_y_800mf, (1, 3, 224, 224)),
    "resnext50_32x4d": (M.resnext50_32x4d, (1, 3, 224, 224)),
    "shufflenet_v2_x1_0": (M.shufflenet_v2_x1_0, (1, 3, 224, 224)),
    "swin_t": (M.swin_t, (1, 3, 224, 224)),
    "vgg16": (M.vgg16, (1, 3, 224, 224)),
    "vit_b_16": (M.vit_b_16, (1, 3, 224, 224)),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/onyx-bench/torchvision")
    names = sys.argv[2:] or list(SPECS)
    os.makedirs(out, exist_ok=True)
    failed = 0
    for name in names:
        make, shape = SPECS[name]
        path = os.path.join(out, name + ".onnx")
        if os.path.exists(path):
            continue
        torch.manual_seed(0)
        kwargs = {"weights": None}
        if name in ("inception_v3", "googlenet"):
            kwargs.update(aux_logits=False, init_weights=True)
        if name.startswith(("deeplab", "lraspp", "fcn")):
            kwargs["weights_backbone"] = None
        try:
            model = make(**kwargs).eval()
            # With gradients enabled (no torch.no_grad) nn.MultiheadAttention takes its plain path rather than the
            # fused native kernel, which has no ONNX export (vit_b_16).
            torch.onnx.export(model, torch.randn(*shape), path + ".tmp", opset_version=17, input_names=["input"],
                              output_names=["output"], do_constant_folding=True)
            os.replace(path + ".tmp", path)
            print("exported", name, flush=True)
        except Exception as e:  # one architecture failing does not stop the others
            failed += 1
            print("FAILED", name, type(e).__name__, str(e)[:200], flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
