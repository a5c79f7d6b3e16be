#!/usr/bin/python3
# usage: bench/make_bert_calibration.py OUT_DIR N  (the issue-16 calibration memory measurement: docs/quantization.md)
# 512 calibration samples for bert_like_enc12 (input: [1,128,768] float embeddings): random token ids from a
# 30522-word vocabulary looked up in a random embedding table, plus position embeddings, as BERT's embedding layer.
import os, sys
import numpy as np
from onnx import numpy_helper
out, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(16)
vocab = rng.standard_normal((30522, 768), dtype=np.float32)
pos = 0.1 * rng.standard_normal((128, 768), dtype=np.float32)
for i in range(n):
    ids = rng.integers(0, 30522, 128)
    x = (vocab[ids] + pos)[None]
    d = os.path.join(out, "test_data_set_%d" % i)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x.astype(np.float32), "input").SerializeToString())
