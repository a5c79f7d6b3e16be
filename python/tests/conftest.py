import os
import sys
import warnings

import numpy as np

# onnx 1.12's test runner still uses np.object, which numpy 1.24 removed.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    if not hasattr(np, "object"):
        np.object = object

SOURCE_DIR = os.environ.get("ONYX_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SHARED_DIR = os.environ.get("ONYX_SHARED_DIR", os.path.join(SOURCE_DIR, "..", "shared"))
sys.path.insert(0, os.path.join(SOURCE_DIR, "build", "python"))
