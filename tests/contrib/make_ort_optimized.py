#!/usr/bin/python3
"""ONNX Runtime's own optimized versions of the fusion test models (tests/data/contrib/fusion/{gpt2_tiny,mha_tiny}),
as real exported-then-optimized models carry com.microsoft operators (FusedMatMul with transBatch, BiasGelu), into
tests/data/contrib/ort_optimized/<name>/ with the same inputs; then ort_outputs.mjs and finish_cases.py add ORT's
outputs of the optimized model (tests/contrib/README.md)."""
import base64
import json
import os
import shutil
import subprocess

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', 'data', 'contrib')
env = dict(os.environ, NODE_PATH=os.path.expanduser('~/.cache/onyx-bench/ort/node_modules'))
for name in ('gpt2_tiny', 'mha_tiny'):
    src = os.path.join(DATA, 'fusion', name)
    dst = os.path.join(DATA, 'ort_optimized', name)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(os.path.join(dst, 'test_data_set_0'))
    subprocess.run(['node', os.path.join(HERE, 'ort_optimize.mjs'), os.path.join(src, 'model.onnx'),
                    os.path.join(dst, 'model.onnx')], check=True, env=env, capture_output=True)
    meta, i = [], 0
    while os.path.exists(os.path.join(src, 'test_data_set_0', f'input_{i}.pb')):
        f = os.path.join(src, 'test_data_set_0', f'input_{i}.pb')
        shutil.copy(f, os.path.join(dst, 'test_data_set_0'))
        t = onnx.load_tensor(f)
        a = numpy_helper.to_array(t)
        meta.append({'name': t.name, 'dtype': str(a.dtype), 'dims': list(a.shape),
                     'data': base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()})
        i += 1
    outputs = [o.name for o in onnx.load(os.path.join(dst, 'model.onnx')).graph.output]
    with open(os.path.join(dst, 'inputs.json'), 'w') as f:
        json.dump({'inputs': meta, 'outputs': outputs}, f)
    print('wrote', dst)
