"""A script written for onnxruntime runs unchanged against onyx (only the import differs)."""
import os

from conftest import SOURCE_DIR

ORT_SCRIPT = '''
import numpy as np
import onnxruntime as ort

sess = ort.InferenceSession(MODEL, providers=["CPUExecutionProvider"])
inp = sess.get_inputs()[0]
shape = [d if isinstance(d, int) else 1 for d in inp.shape]
x = np.random.default_rng(0).uniform(-1, 1, size=shape).astype(np.float32)
outputs = sess.run(None, {inp.name: x})
names = [o.name for o in sess.get_outputs()]
result = {n: (o.shape, float(o.mean())) for n, o in zip(names, outputs)}
'''


def test_onnxruntime_script_runs_unchanged():
    import onyx

    namespace = {"MODEL": os.path.join(SOURCE_DIR, "models", "blazeface", "model.onnx")}
    code = ORT_SCRIPT.replace("import onnxruntime as ort", "import onyx as ort")
    exec(compile(code, "ort_script.py", "exec"), namespace)
    result = namespace["result"]
    assert result["Identity:0"][0] == (1, 512, 1)
    assert result["Identity_3:0"][0] == (1, 384, 16)
    assert onyx.get_available_providers() == ["CPUExecutionProvider"]
