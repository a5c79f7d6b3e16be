#!/usr/bin/python3
"""Differential test of `onyx check` against ONNX's own checker (python3-onnx 1.12, full_check=False).

usage: differential.py ONYX_BINARY SHARED_DIR [--verbose]

Runs both checkers over every model in
  /usr/share/libonnx-testdata/data/**/model.onnx   (the onnx 1.12 backend tests)
  SHARED_DIR/onnx-tests/**/model.onnx             (the newest backend tests)
  SHARED_DIR/models/onnx/*.onnx                    (real models)
and compares the verdicts (valid / invalid). Models whose IR version is newer than onnx 1.12 knows (IR > 8) are
counted apart: 1.12 rejects them for their IR version alone, so they say nothing about either checker.

Besides, invalid variants of onnx 1.12's node tests (one broken rule each: no opset import, an unknown
attribute, a duplicated node, an undefined input, a domain not imported, nodes out of order) are made in a
temporary folder and compared too.

Every disagreement is listed with its reason. Known reasons (where onyx is right and onnx 1.12 is not, e.g.
operators newer than 1.12) are recognised below; an unexplained disagreement, or agreement under 99%, fails.
"""
import glob
import os
import re
import subprocess
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import onnx
import onnx.checker
import onnx.defs

ONNX_MAX_IR = onnx.IR_VERSION  # 8 for onnx 1.12
AGREEMENT_TARGET = 0.99


def model_paths(shared):
    paths = sorted(glob.glob("/usr/share/libonnx-testdata/data/**/model.onnx", recursive=True))
    paths += sorted(glob.glob(os.path.join(shared, "onnx-tests", "**", "model.onnx"), recursive=True))
    paths += sorted(glob.glob(os.path.join(shared, "models", "onnx", "*.onnx")))
    return paths


def onnx_verdict(path):
    """(ir_version, ok, message) from onnx 1.12."""
    try:
        m = onnx.load(path, load_external_data=False)
    except Exception as e:  # noqa: BLE001 - any load failure is a verdict
        return None, False, f"load: {e}"
    try:
        onnx.checker.check_model(path, full_check=False)
        return m.ir_version, True, ""
    except Exception as e:  # noqa: BLE001
        return m.ir_version, False, str(e).strip().splitlines()[0] if str(e).strip() else repr(e)


def onyx_verdict(binary, path):
    r = subprocess.run([binary, "check", path], capture_output=True, text=True, timeout=120)
    lines = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.strip()]
    problems = [ln for ln in lines if not ln.endswith(": valid") and not re.search(r": \d+ problems?$", ln)]
    return r.returncode == 0, problems


# Operators (domain, name) -> first since_version that onnx 1.12 knows; used to explain disagreements.
KNOWN_1_12 = {}
for _s in onnx.defs.get_all_schemas_with_history():
    _key = (_s.domain or "ai.onnx", _s.name)
    KNOWN_1_12[_key] = max(KNOWN_1_12.get(_key, 0), _s.since_version)


ONNX_MAX_OPSET = onnx.defs.onnx_opset_version()  # 17 for onnx 1.12
# (domain, op) -> since_versions, from ONNX's newest operator list.
OP_VERSIONS = {}


def read_ops_tsv(shared):
    with open(os.path.join(shared, "onnx-spec", "ops.tsv")) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            cols = dict(zip(header, line.rstrip("\n").split("\t")))
            OP_VERSIONS[(cols["domain"], cols["op"])] = sorted(int(v) for v in cols["versions"].split(","))


def nodes_of(graph):
    for n in graph.node:
        yield n
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from nodes_of(a.g)
            for g in a.graphs:
                yield from nodes_of(g)


def newer_versions_used(path):
    """Operators the model runs at a version newer than onnx 1.12 knows: [(op, version in force)]."""
    m = onnx.load(path, load_external_data=False)
    opsets = {(o.domain or "ai.onnx"): o.version for o in m.opset_import}
    used = set()
    nodes = list(nodes_of(m.graph))
    for f in m.functions:
        nodes += list(f.node)
    for n in nodes:
        domain = n.domain or "ai.onnx"
        if domain != "ai.onnx" or domain not in opsets:
            continue
        versions = [v for v in OP_VERSIONS.get((domain, n.op_type), []) if v <= opsets[domain]]
        if versions and versions[-1] > ONNX_MAX_OPSET:
            used.add((n.op_type, versions[-1]))
    return sorted(used)


def explain(path, onnx_ok, onnx_msg, onyx_problems):
    """A reason for a disagreement, or None when it is not understood."""
    if not onnx_ok and not onyx_problems:
        newer = newer_versions_used(path)
        if newer:
            ops = ", ".join(f"{op}-{v}" for op, v in newer)
            return (f"onyx right: the model uses {ops}, newer than onnx 1.12 knows (opset <= {ONNX_MAX_OPSET}); "
                    "1.12 checks those nodes against an older version's schema")
        m = re.search(r"No Op registered for (\w+) with domain_version of (\d+)", onnx_msg)
        if m:
            return f"onyx right: {m.group(1)} at opset {m.group(2)} is newer than onnx 1.12 knows"
        if "is not a registered function/op" in onnx_msg:
            return "onyx right: the operator is newer than onnx 1.12"
    else:
        text = " ".join(onyx_problems)
        if "[type-constraint]" in text or "[type-mismatch]" in text:
            return ("onyx right: a declared type breaks the operator's type constraint; onnx checks types only "
                    "in its full check (shape inference)")
        if "[element-type-ir-version]" in text:
            return "onyx right: an element type newer than the model's IR version (onnx 1.12 does not check)"
    return None


def make_mutants(out_dir, limit=80):
    """Invalid variants of onnx 1.12's own node tests, one broken rule each: both checkers must reject them."""
    sources = sorted(glob.glob("/usr/share/libonnx-testdata/data/node/*/model.onnx"))[:limit]
    made = []
    for i, src in enumerate(sources):
        base = onnx.load(src)
        if not base.graph.node:
            continue

        def save(kind, model):
            path = os.path.join(out_dir, f"{i:03d}_{kind}_{os.path.basename(os.path.dirname(src))}.onnx")
            onnx.save(model, path)
            made.append(path)

        m = onnx.ModelProto()
        m.CopyFrom(base)
        del m.opset_import[:]
        save("no_opset_import", m)

        m = onnx.ModelProto()
        m.CopyFrom(base)
        m.graph.node[0].attribute.append(onnx.helper.make_attribute("bogus_attribute", 1))
        save("unknown_attribute", m)

        m = onnx.ModelProto()
        m.CopyFrom(base)
        m.graph.node.append(m.graph.node[0])
        save("ssa_duplicate_node", m)

        m = onnx.ModelProto()
        m.CopyFrom(base)
        m.graph.node[0].domain = "ai.onnx.ml"
        save("domain_not_imported", m)

        m = onnx.ModelProto()
        m.CopyFrom(base)
        m.graph.node[0].input.append("no_such_value")
        save("undefined_input", m)

        if len(base.graph.node) >= 2:
            m = onnx.ModelProto()
            m.CopyFrom(base)
            nodes = list(m.graph.node)
            del m.graph.node[:]
            m.graph.node.extend(reversed(nodes))
            save("reversed_order", m)
    return made


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, shared = sys.argv[1], sys.argv[2]
    verbose = "--verbose" in sys.argv
    paths = model_paths(shared)
    read_ops_tsv(shared)
    mutant_dir = tempfile.mkdtemp(prefix="onyx-checker-mutants-")
    mutants = make_mutants(mutant_dir)
    paths += mutants

    def run(path):
        ir, ok, msg = onnx_verdict(path)
        onyx_ok, problems = onyx_verdict(binary, path)
        return path, ir, ok, msg, onyx_ok, problems

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run, paths))

    compared = agree = too_new = 0
    explained, unexplained = [], []
    both_invalid = []
    for path, ir, ok, msg, onyx_ok, problems in results:
        beyond_ops = newer_versions_used(path) if ir is not None else []
        if ir is not None and (ir > ONNX_MAX_IR or beyond_ops):
            too_new += 1
            if not ok and not onyx_ok and ir <= ONNX_MAX_IR:
                both_invalid.append((path, msg, problems))
            if ir <= ONNX_MAX_IR and not ok and onyx_ok:
                explained.append((path, f"onnx: {msg}", problems, explain(path, ok, msg, problems)))
            if not onyx_ok:
                # onnx 1.12 cannot judge these; onyx must still accept the official (valid) ones.
                unexplained.append((path, "(IR %d, not judged by onnx 1.12)" % ir, problems))
            continue
        compared += 1
        if ok == onyx_ok:
            agree += 1
            if not ok:
                both_invalid.append((path, msg, problems))
            continue
        reason = explain(path, ok, msg, problems)
        entry = (path, f"onnx: {'valid' if ok else msg}", problems, reason)
        (explained if reason else unexplained).append(entry[:3] if not reason else entry)

    rate = agree / compared if compared else 0.0
    print(f"models: {len(results)}")
    print(f"  beyond onnx 1.12 (IR > {ONNX_MAX_IR}, or operator versions of opset > {ONNX_MAX_OPSET}), "
          f"not compared: {too_new}; onyx rejects {sum(1 for u in unexplained if 'not judged' in u[1])} of them")
    print(f"  compared: {compared}, same verdict: {agree} ({100.0 * rate:.2f}%), "
          f"both invalid: {len(both_invalid)}")
    print(f"  disagreements explained: {len(explained)}, unexplained: {len(unexplained)}")
    for path, onnx_side, problems, reason in explained:
        print(f"\nEXPLAINED {path}\n  {onnx_side}\n  onyx: {'valid' if not problems else problems[0]}\n  "
              f"reason: {reason}")
    for path, onnx_side, problems in unexplained:
        print(f"\nUNEXPLAINED {path}\n  {onnx_side}\n  onyx: {'valid' if not problems else ''}")
        for p in problems[:5]:
            print(f"    {p}")
    if verbose:
        for path, msg, problems in both_invalid:
            print(f"\nBOTH INVALID {path}\n  onnx: {msg}\n  onyx: {problems[:1]}")
    shutil.rmtree(mutant_dir, ignore_errors=True)
    mutant_set = set(mutants)
    mutant_results = [r for r in results if r[0] in mutant_set]
    mutants_agree = sum(1 for r in mutant_results if r[2] == r[4])
    print(f"  of which invalid variants of 1.12 node tests: {len(mutant_results)}, same verdict: {mutants_agree}, "
          f"rejected by onyx: {sum(1 for r in mutant_results if not r[4])}")
    ok = rate >= AGREEMENT_TARGET and not unexplained
    print(f"\n{'PASS' if ok else 'FAIL'}: agreement {100.0 * rate:.2f}% (target {100 * AGREEMENT_TARGET:.0f}%), "
          f"{len(unexplained)} unexplained")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
