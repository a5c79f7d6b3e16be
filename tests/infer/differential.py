#!/usr/bin/python3
"""Differential test of `onyx infer` against ONNX's own shape inference (python3-onnx 1.12).

For every model, the declared value_info and graph-output types are stripped (so that both tools infer from
the graph inputs alone), then onnx.shape_inference.infer_shapes(strict_mode=False, data_prop=True) and
`onyx infer` run on the same bytes. For every value onnx types (value_info and graph outputs), onyx's type must
be equal or more specific:
  conflict      different element types, ranks or numeric dims (never acceptable)
  less specific onnx knows something onyx does not (a gap)
  param differs both name a symbolic dim, differently
A model agrees fully when none of these occur.

usage: differential.py ONYX_BINARY [--limit N] [--verbose] [--min-agreement PCT] [MODEL_DIRS_OR_FILES...]
"""
import argparse
import glob
import multiprocessing
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import shape_inference

MAX_IR_VERSION_112 = 8  # the newest IR version onnx 1.12 was written for
MAX_OPSETS_112 = {'': 17, 'ai.onnx': 17, 'ai.onnx.ml': 3, 'ai.onnx.preview.training': 1}


def default_models():
    paths = sorted(glob.glob('/usr/share/libonnx-testdata/data/**/model.onnx', recursive=True))
    paths += sorted(glob.glob('/work/shared/onnx-tests/**/model.onnx', recursive=True))
    paths += sorted(glob.glob('/work/shared/models/onnx/*.onnx'))
    return paths


def type_str(t):
    which = t.WhichOneof('value')
    if which == 'tensor_type':
        tt = t.tensor_type
        s = onnx.TensorProto.DataType.Name(tt.elem_type) if tt.elem_type else '?'
        if tt.HasField('shape'):
            s += '[' + ','.join(dim_str(d) for d in tt.shape.dim) + ']'
        return s
    if which == 'sequence_type':
        return 'seq(' + type_str(t.sequence_type.elem_type) + ')'
    if which == 'optional_type':
        return 'optional(' + type_str(t.optional_type.elem_type) + ')'
    return which or '?'


def dim_str(d):
    if d.HasField('dim_value'):
        return str(d.dim_value)
    if d.HasField('dim_param'):
        return d.dim_param
    return '?'


def generated(d):
    """A symbol an inference tool invented for an unknown dim (ONNX and onyx both name them unk__N): it says
    no more than an unknown dim, so it is compared as one."""
    return d.HasField('dim_param') and d.dim_param.startswith('unk__')


def compare_types(ref, got, problems, where):
    """Appends (kind, message) for each way `got` (onyx) is not equal to or more specific than `ref` (onnx)."""
    rk, gk = ref.WhichOneof('value'), got.WhichOneof('value')
    if rk is None:
        return
    if gk is None:
        problems.append(('less specific', f'{where}: onnx {type_str(ref)}, onyx nothing'))
        return
    if rk != gk:
        problems.append(('conflict', f'{where}: onnx {type_str(ref)}, onyx {type_str(got)}'))
        return
    if rk in ('sequence_type', 'optional_type'):
        compare_types(getattr(ref, rk).elem_type, getattr(got, rk).elem_type, problems, where)
        return
    if rk != 'tensor_type':
        return
    r, g = ref.tensor_type, got.tensor_type
    if r.elem_type and g.elem_type and r.elem_type != g.elem_type:
        problems.append(('elem conflict', f'{where}: onnx {type_str(ref)}, onyx {type_str(got)}'))
        return
    if r.elem_type and not g.elem_type:
        problems.append(('less specific', f'{where}: onnx {type_str(ref)}, onyx {type_str(got)}'))
    if not r.HasField('shape'):
        return
    if not g.HasField('shape'):
        problems.append(('less specific', f'{where}: onnx {type_str(ref)}, onyx {type_str(got)}'))
        return
    if len(r.shape.dim) != len(g.shape.dim):
        problems.append(('conflict', f'{where}: onnx {type_str(ref)}, onyx {type_str(got)} (rank)'))
        return
    for rd, gd in zip(r.shape.dim, g.shape.dim):
        if rd.HasField('dim_value'):
            if gd.HasField('dim_value') and gd.dim_value != rd.dim_value:
                problems.append(('conflict', f'{where}: onnx {type_str(ref)}, onyx {type_str(got)}'))
                return
            if not gd.HasField('dim_value'):
                problems.append(('less specific', f'{where}: onnx {type_str(ref)}, onyx {type_str(got)}'))
                return
        elif rd.HasField('dim_param') and not generated(rd):
            if generated(gd):
                problems.append(('less specific', f'{where}: onnx {type_str(ref)}, onyx {type_str(got)}'))
                return
            if gd.HasField('dim_param') and gd.dim_param != rd.dim_param:
                problems.append(('param differs', f'{where}: onnx {type_str(ref)}, onyx {type_str(got)}'))
                return
            if not gd.HasField('dim_param') and not gd.HasField('dim_value'):
                problems.append(('less specific', f'{where}: onnx {type_str(ref)}, onyx {type_str(got)}'))
                return


def typed_values(graph):
    out = {}
    for vi in list(graph.value_info) + list(graph.output):
        if vi.HasField('type'):
            out[vi.name] = vi.type
    return out


def strip(model):
    del model.graph.value_info[:]
    for o in model.graph.output:
        o.ClearField('type')


def check_model(args):
    onyx, path = args
    try:
        model = onnx.load(path)
    except Exception as e:  # noqa: BLE001 - a model this onnx cannot parse
        return path, 'unreadable', [], f'onnx cannot load it: {e}'.splitlines()[0]
    # Newer models are compared too, apart: onnx 1.12 runs on them, but with its older operator schemas.
    newer = model.ir_version > MAX_IR_VERSION_112 or any(
        o.version > MAX_OPSETS_112.get(o.domain, 0) for o in model.opset_import)
    status = 'compared (newer than onnx 1.12)' if newer else 'compared'
    # First onyx alone, strict, on the model as written: its declared types must not contradict onyx's.
    problems = []
    run = subprocess.run([onyx, 'infer', path], capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        problems.append(('declared conflict', (run.stderr.strip().splitlines() or ['?'])[-1]))
    declared = typed_values(model.graph)
    strip(model)
    try:
        ref = shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    except Exception as e:  # noqa: BLE001
        return path, 'onnx failed', [], str(e).splitlines()[0]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'in.onnx')
        dst = os.path.join(tmp, 'out.onnx')
        onnx.save(model, src)
        # External data files sit beside the original model.
        for f in os.listdir(os.path.dirname(path)):
            full = os.path.join(os.path.dirname(path), f)
            if os.path.isfile(full) and not f.endswith('.onnx') and not f.endswith('.pb'):
                os.symlink(full, os.path.join(tmp, f))
        run = subprocess.run([onyx, 'infer', '--no-strict', src, '-o', dst], capture_output=True, text=True,
                             timeout=120)
        if run.returncode != 0:
            msg = (run.stderr.strip().splitlines() or ['?'])[-1]
            return path, status, problems + [('onyx failed', msg)], msg
        warnings = [l for l in run.stderr.splitlines() if 'warning' in l]
        got = typed_values(onnx.load(dst, load_external_data=False).graph)
    problems += [('onyx warning', w) for w in warnings]
    for name, t in typed_values(ref.graph).items():
        found = []
        compare_types(t, got.get(name, onnx.TypeProto()), found, f"'{name}'")
        # Where onnx 1.12 and onyx contradict each other, the type the model's author declared (a backend
        # test's expected output) decides: onnx 1.12 may apply an older schema than the model's opset.
        if any('conflict' in k for k, _ in found) and name in declared:
            onyx_vs_declared, onnx_vs_declared = [], []
            compare_types(declared[name], got.get(name, onnx.TypeProto()), onyx_vs_declared, '')
            compare_types(declared[name], t, onnx_vs_declared, '')
            if not any('conflict' in k for k, _ in onyx_vs_declared) and \
                    any('conflict' in k for k, _ in onnx_vs_declared):
                found = [('onnx 1.12 outdated (onyx matches the declared type)', m) for _, m in found]
        problems += found
    return path, status, problems, ''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('onyx')
    ap.add_argument('paths', nargs='*')
    ap.add_argument('--limit', type=int, default=0)
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--min-agreement', type=float, default=99.0)
    a = ap.parse_args()
    paths = []
    for p in a.paths:
        paths += sorted(glob.glob(os.path.join(p, '**/*.onnx'), recursive=True)) if os.path.isdir(p) else [p]
    if not a.paths:
        paths = default_models()
    if a.limit:
        paths = paths[:a.limit]
    with multiprocessing.Pool(a.jobs) as pool:
        results = pool.map(check_model, [(a.onyx, p) for p in paths], chunksize=8)

    counts = {}
    groups = {}
    for path, status, problems, note in results:
        counts[status] = counts.get(status, 0) + 1
        if not status.startswith('compared'):
            if a.verbose:
                print(f'{status}: {path}: {note}')
            continue
        g = groups.setdefault(status, {'kinds': {}, 'disagreeing': [], 'n': 0})
        g['n'] += 1
        for kind, _ in problems:
            g['kinds'][kind] = g['kinds'].get(kind, 0) + 1
        if any(not k.startswith('onnx 1.12 outdated') for k, _ in problems):
            g['disagreeing'].append((path, problems))
        elif problems:
            g.setdefault('explained', []).append((path, problems))
    print('models: ' + ', '.join(f'{k} {v}' for k, v in sorted(counts.items())))
    ok = True
    for status, g in sorted(groups.items()):
        print(f'== {status}')
        for path, problems in g['disagreeing']:
            print(f'DISAGREE {path}')
            for kind, msg in problems[: (100 if a.verbose else 5)]:
                print(f'    {kind}: {msg}')
            if len(problems) > 5 and not a.verbose:
                print(f'    ... {len(problems) - 5} more')
        for path, problems in g.get('explained', []):
            print(f'EXPLAINED {path}')
            for kind, msg in problems[:3]:
                print(f'    {kind}: {msg}')
        kinds = g['kinds']
        print('problems by kind: ' + (', '.join(f'{k} {v}' for k, v in sorted(kinds.items())) or 'none'))
        agreeing = g['n'] - len(g['disagreeing'])
        pct = 100.0 * agreeing / g['n'] if g['n'] else 0.0
        print(f'full agreement ({status}): {agreeing}/{g["n"]} models ({pct:.2f}%)')
        # Element types must never conflict; the agreement target applies to what onnx 1.12 was written for.
        ok = ok and kinds.get('elem conflict', 0) == 0
        if status == 'compared':
            ok = ok and pct >= a.min_agreement and kinds.get('conflict', 0) == 0
    print('PASS' if ok else 'FAIL')
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
