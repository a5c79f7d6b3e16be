#!/usr/bin/python3
"""Turns each case's outputs.json (ONNX Runtime's outputs, from ort_outputs.mjs) into
test_data_set_0/output_N.pb and removes the json files. Cases without outputs.json (ORT rejected them) are
deleted, and listed."""
import base64
import json
import os
import shutil
import sys

import numpy as np
from onnx import numpy_helper

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data',
                                                         'contrib')
for name in sorted(os.listdir(ROOT)):
    d = os.path.join(ROOT, name)
    out_json = os.path.join(d, 'outputs.json')
    if not os.path.exists(out_json):
        if os.path.exists(os.path.join(d, 'inputs.json')):
            print('dropped (no ORT output):', name)
            shutil.rmtree(d)
        continue
    for i, o in enumerate(json.load(open(out_json))):
        a = np.frombuffer(base64.b64decode(o['data']), dtype=o['dtype']).reshape(o['dims'])
        with open(os.path.join(d, 'test_data_set_0', f'output_{i}.pb'), 'wb') as f:
            f.write(numpy_helper.from_array(a, o['name']).SerializeToString())
    os.remove(out_json)
    os.remove(os.path.join(d, 'inputs.json'))
