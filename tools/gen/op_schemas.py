#!/usr/bin/python3
"""Generates src/schema/op_schemas.inc: the schema of every operator version the checker knows.

Two sources feed it:
  * onnx 1.12 (Debian's python3-onnx), `onnx.defs.get_all_schemas_with_history()`: every schema up to opset 17;
  * tools/gen/schemas_after_1_12.txt: the versions onnx 1.12 does not know (opset 18 and later, and operators
    added since), written by hand from ONNX's Operators.md / Changelog.md in the same text format, where
    `op DOMAIN NAME VERSION from OLDER` starts from a copy of an older version (`like OP VERSION`: of another
    operator) and the lines after it change it.

Run from the repository root:  /usr/bin/python3 tools/gen/op_schemas.py [--check ../shared/onnx-spec/ops.tsv]

Text format (one schema = an `op` line and the lines under it; src/schema/op_schemas.cc parses it at startup):
  set NAME TYPE...                     a named type list, used as $NAME
  op DOMAIN NAME SINCE [deprecated]    a schema
  in NAME TYPESTR [opt|var] [het] [min=N]   formal input (TYPESTR: a type parameter or a literal type)
  out NAME TYPESTR [opt|var] [het] [min=N]  formal output
  arity IN_MIN IN_MAX OUT_MIN OUT_MAX  only where the counts differ from what the formals imply (max -1 = unbounded)
  attr NAME TYPE [req]                 attribute (TYPE: int, float, string, tensor, graph, ints, ... type_protos)
  type PARAM TYPE...                   type constraint; a bare element name x stands for tensor(x)
In the hand-written file, after `op ... from V`: `in`/`out` lines replace the whole input/output list, `attr`
replaces or adds one attribute, `-attr NAME` removes one, `type` replaces or adds one constraint, `-type P` removes.
"""
import os
import sys

import onnx
import onnx.defs

HERE = os.path.dirname(os.path.abspath(__file__))
HAND_FILE = os.path.join(HERE, "schemas_after_1_12.txt")
OUT_FILE = "src/schema/op_schemas.inc"

INT_MAX = 2147483647

_BASE3 = "uint8 uint16 uint32 uint64 int8 int16 int32 int64 float16 float double string bool complex64 complex128"
_F8 = "float8e4m3fn float8e4m3fnuz float8e5m2 float8e5m2fnuz"
# Named type lists as ONNX's OpSchema helpers define them (all_tensor_types_irN and friends).
NAMED_SETS = {
    "all_ir3": _BASE3,
    "all_ir4": _BASE3 + " bfloat16",
    "all_ir9": _BASE3 + " bfloat16 " + _F8,
    "all_ir10": _BASE3 + " bfloat16 " + _F8 + " uint4 int4",
    "all_ir11": _BASE3 + " bfloat16 " + _F8 + " uint4 int4 float4e2m1",
    "all_ir12": _BASE3 + " bfloat16 " + _F8 + " uint4 int4 float4e2m1 float8e8m0",
    "all_ir13": _BASE3 + " bfloat16 " + _F8 + " uint4 int4 float4e2m1 float8e8m0 uint2 int2",
    "nocomplex_ir4": "uint8 uint16 uint32 uint64 int8 int16 int32 int64 float16 float double string bool bfloat16",
    "nocomplex_ir9": "uint8 uint16 uint32 uint64 int8 int16 int32 int64 float16 float double string bool bfloat16 " + _F8,
    "nocomplex_ir10": "uint8 uint16 uint32 uint64 int8 int16 int32 int64 float16 float double string bool bfloat16 "
    + _F8 + " uint4 int4",
    "nocomplex_ir11": "uint8 uint16 uint32 uint64 int8 int16 int32 int64 float16 float double string bool bfloat16 "
    + _F8 + " uint4 int4 float4e2m1",
    "nocomplex_ir12": "uint8 uint16 uint32 uint64 int8 int16 int32 int64 float16 float double string bool bfloat16 "
    + _F8 + " uint4 int4 float4e2m1 float8e8m0",
    "nocomplex_ir13": "uint8 uint16 uint32 uint64 int8 int16 int32 int64 float16 float double string bool bfloat16 "
    + _F8 + " uint4 int4 float4e2m1 float8e8m0 uint2 int2",
    "numeric_ir3": "uint8 uint16 uint32 uint64 int8 int16 int32 int64 float16 float double",
    "numeric_ir4": "uint8 uint16 uint32 uint64 int8 int16 int32 int64 float16 float double bfloat16",
    "float3": "float16 float double",
    "float4": "bfloat16 float16 float double",
    "reduce_ir3": "uint32 uint64 int32 int64 float16 float double",
    "reduce_ir4": "uint32 uint64 int32 int64 float16 float double bfloat16",
    "seq_ir3": " ".join(f"seq(tensor({t}))" for t in _BASE3.split()),
    "seq_ir4": " ".join(f"seq(tensor({t}))" for t in (_BASE3 + " bfloat16").split()),
}
NAMED_SETS["opt_ir3"] = " ".join(f"optional({t})" for t in NAMED_SETS["seq_ir3"].split()) + " " + " ".join(
    f"optional(tensor({t}))" for t in _BASE3.split())
NAMED_SETS["opt_ir4"] = " ".join(f"optional({t})" for t in NAMED_SETS["seq_ir4"].split()) + " " + " ".join(
    f"optional(tensor({t}))" for t in (_BASE3 + " bfloat16").split())

ATTR_TYPE_NAMES = {
    "FLOAT": "float", "INT": "int", "STRING": "string", "TENSOR": "tensor", "GRAPH": "graph",
    "FLOATS": "floats", "INTS": "ints", "STRINGS": "strings", "TENSORS": "tensors", "GRAPHS": "graphs",
    "SPARSE_TENSOR": "sparse_tensor", "SPARSE_TENSORS": "sparse_tensors", "TYPE_PROTO": "type_proto",
    "TYPE_PROTOS": "type_protos",
}


def expand_type(tok, sets):
    """One token of a type list -> list of full ONNX type strings."""
    if tok.startswith("$"):
        name = tok[1:]
        if name not in sets:
            sys.exit(f"unknown type set ${name}")
        return [x for t in sets[name].split() for x in expand_type(t, sets)]
    return [tok if "(" in tok else f"tensor({tok})"]


def short_type(t):
    return t[len("tensor("):-1] if t.startswith("tensor(") and t.count("(") == 1 else t


class Schema:
    def __init__(self, domain, name, since):
        self.domain, self.name, self.since = domain, name, since
        self.deprecated = False
        self.inputs, self.outputs = [], []  # (name, typestr, option, homogeneous, min_arity)
        self.attrs = {}  # name -> (type, required)
        self.types = {}  # param -> [full type strings]
        self.arity = None  # (in_min, in_max, out_min, out_max) when it differs from the formals

    def copy_as(self, since):
        s = Schema(self.domain, self.name, since)
        s.deprecated = self.deprecated
        s.inputs, s.outputs = list(self.inputs), list(self.outputs)
        s.attrs, s.types = dict(self.attrs), {k: list(v) for k, v in self.types.items()}
        s.arity = self.arity
        return s


def implied_counts(formals):
    lo = hi = 0
    for _, _, option, _, min_arity in formals:
        if option == "single":
            hi += 1
            lo = hi
        elif option == "opt":
            hi += 1
        else:
            lo = hi + min_arity
            hi = INT_MAX
    return lo, hi


def from_onnx(s):
    sc = Schema(s.domain or "ai.onnx", s.name, s.since_version)
    sc.deprecated = bool(s.deprecated)
    opt_names = {"Single": "single", "Optional": "opt", "Variadic": "var"}

    def formals(params, lo, hi):
        out = []
        for p in params:
            option = opt_names[p.option.name]
            out.append((p.name, p.typeStr, option, bool(p.isHomogeneous), 1))
        # Variadic min arity is not exposed in 1.12's Python API: recover it from the schema's minimum count.
        if out and out[-1][2] == "var":
            n, t, o, h, _ = out[-1]
            out[-1] = (n, t, o, h, lo - implied_counts(out[:-1])[1])
        return out

    sc.inputs = formals(s.inputs, s.min_input, s.max_input)
    sc.outputs = formals(s.outputs, s.min_output, s.max_output)
    for a in s.attributes.values():
        sc.attrs[a.name] = (ATTR_TYPE_NAMES[a.type.name], bool(a.required))
    for tc in s.type_constraints:
        sc.types[tc.type_param_str] = list(tc.allowed_type_strs)
    counts = (s.min_input, s.max_input, s.min_output, s.max_output)
    if counts != implied_counts(sc.inputs) + implied_counts(sc.outputs):
        sc.arity = counts
    return sc


def parse_formal(words):
    name, typestr = words[0], words[1]
    option, het, min_arity = "single", False, 1
    for w in words[2:]:
        if w in ("opt", "var"):
            option = w
        elif w == "het":
            het = True
        elif w.startswith("min="):
            min_arity = int(w[4:])
        else:
            raise ValueError(f"unknown formal flag {w}")
    return (name, typestr, option, not het, min_arity)


def read_hand_file(path, known):
    """Applies the hand-written schemas on top of `known` ((domain, name, since) -> Schema)."""
    sets = dict(NAMED_SETS)
    cur = None
    replaced_in = replaced_out = False
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            w = line.split()
            try:
                if w[0] == "set":
                    sets[w[1]] = " ".join(t for tok in w[2:] for t in map(short_type, expand_type(tok, sets)))
                elif w[0] == "op":
                    deprecated = "deprecated" in w
                    w = [x for x in w if x != "deprecated"]
                    domain, name, since = w[1], w[2], int(w[3])
                    if (domain, name, since) in known:
                        raise ValueError(f"{name}-{since} is defined twice")
                    if len(w) > 4 and w[4] in ("from", "like"):
                        # from V: an older version of this operator; like OP V: another operator's schema.
                        base_name, base_version = (name, w[5]) if w[4] == "from" else (w[5], w[6])
                        cur = known[(domain, base_name, int(base_version))].copy_as(since)
                        cur.name = name
                        cur.deprecated = False
                    else:
                        cur = Schema(domain, name, since)
                    cur.deprecated = deprecated
                    known[(domain, name, since)] = cur
                    replaced_in = replaced_out = False
                elif w[0] == "in":
                    if not replaced_in:
                        cur.inputs, replaced_in = [], True
                    cur.inputs.append(parse_formal(w[1:]))
                elif w[0] == "out":
                    if not replaced_out:
                        cur.outputs, replaced_out = [], True
                    cur.outputs.append(parse_formal(w[1:]))
                elif w[0] == "noinputs":
                    cur.inputs, replaced_in = [], True
                elif w[0] == "attr":
                    if w[2] not in ATTR_TYPE_NAMES.values():
                        raise ValueError(f"unknown attribute type {w[2]}")
                    cur.attrs[w[1]] = (w[2], len(w) > 3 and w[3] == "req")
                elif w[0] == "-attr":
                    del cur.attrs[w[1]]
                elif w[0] == "type":
                    cur.types[w[1]] = [x for tok in w[2:] for x in expand_type(tok, sets)]
                elif w[0] == "-type":
                    del cur.types[w[1]]
                elif w[0] == "arity":
                    cur.arity = tuple(INT_MAX if v == "-1" else int(v) for v in w[1:5])
                else:
                    raise ValueError(f"unknown line kind {w[0]}")
            except (KeyError, ValueError, IndexError) as e:
                sys.exit(f"{path}:{lineno}: {e!r}")


def validate(sc):
    for formal in sc.inputs + sc.outputs:
        t = formal[1]
        if "(" not in t and t not in sc.types:
            sys.exit(f"{sc.name}-{sc.since}: formal '{formal[0]}' uses undefined type parameter {t}")


def format_types(types):
    """Writes a type list as named sets where whole sets fit (largest first), then the remaining types."""
    remaining = [short_type(t) for t in types]
    words = []
    for name, members in sorted(NAMED_SETS.items(), key=lambda kv: -len(kv[1].split())):
        m = set(members.split())
        if m <= set(remaining):
            words.append("$" + name)
            remaining = [t for t in remaining if t not in m]
    return " ".join(words + remaining)


def format_formal(kind, f):
    name, typestr, option, homogeneous, min_arity = f
    words = [kind, name, typestr]
    if option != "single":
        words.append(option)
    if not homogeneous:
        words.append("het")
    if option == "var" and min_arity != 1:
        words.append(f"min={min_arity}")
    return " ".join(words)


def emit(schemas):
    lines = [f"set {name} {members}" for name, members in NAMED_SETS.items()]
    for sc in schemas:
        validate(sc)
        lines.append(f"op {sc.domain} {sc.name} {sc.since}" + (" deprecated" if sc.deprecated else ""))
        lines += [format_formal("in", f) for f in sc.inputs]
        lines += [format_formal("out", f) for f in sc.outputs]
        if sc.arity:
            lines.append("arity " + " ".join("-1" if v == INT_MAX else str(v) for v in sc.arity))
        for name in sorted(sc.attrs):
            t, req = sc.attrs[name]
            lines.append(f"attr {name} {t}" + (" req" if req else ""))
        for param, types in sc.types.items():
            lines.append(f"type {param} {format_types(types)}")
    return lines


def main():
    known = {}
    for s in onnx.defs.get_all_schemas_with_history():
        sc = from_onnx(s)
        known[(sc.domain, sc.name, sc.since)] = sc
    n_onnx = len(known)
    read_hand_file(HAND_FILE, known)
    schemas = [known[k] for k in sorted(known)]
    body = "\n".join(emit(schemas))
    header = (
        "// Generated by tools/gen/op_schemas.py from onnx " + onnx.__version__ + " (" + str(n_onnx) +
        " schemas) and tools/gen/schemas_after_1_12.txt (" + str(len(known) - n_onnx) + " schemas); do not edit.\n"
        "// The text format is described in tools/gen/op_schemas.py; src/schema/op_schemas.cc parses it.\n")
    # Split the text into string literals of a few KiB: compilers limit the length of one literal.
    chunks, cur = [], []
    for line in body.split("\n"):
        cur.append(line)
        if sum(len(x) + 1 for x in cur) > 8000:
            chunks.append("\n".join(cur) + "\n")
            cur = []
    if cur:
        chunks.append("\n".join(cur) + "\n")
    with open(OUT_FILE, "w") as f:
        f.write(header)
        for c in chunks:
            f.write('R"SCHEMA(' + c + ')SCHEMA"\n')
    print(f"{OUT_FILE}: {len(schemas)} schemas ({n_onnx} from onnx {onnx.__version__})")

    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        missing = []
        with open(sys.argv[2]) as f:
            header = f.readline().rstrip("\n").split("\t")
            for line in f:
                cols = dict(zip(header, line.rstrip("\n").split("\t")))
                for v in cols["versions"].split(","):
                    if (cols["domain"], cols["op"], int(v)) not in known:
                        missing.append(f"{cols['domain']} {cols['op']}-{v}")
        print(f"missing from ops.tsv: {len(missing)}")
        for m in missing:
            print("  " + m)


if __name__ == "__main__":
    main()
