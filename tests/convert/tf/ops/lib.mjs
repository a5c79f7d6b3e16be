// Building blocks of the TensorFlow operator cases: a tiny GraphDef in the proto3-JSON form TF.js graph-models store
// (model.json), built node by node, plus the inputs to feed it. gen_cases.mjs runs each case in @tensorflow/tfjs
// (the reference) and writes it out; the case files (cases_*.mjs) only describe graphs.
//
// A case file exports `cases`, an array of {name, build(g)} where build adds nodes to the graph builder `g`:
//   const x = g.input('x', 'float32', [2, 3]);                 // Placeholder; fill and declared dims: see input()
//   const c = g.const('c', 'int32', [2], [1, 0]);              // Const (stored in the weight shard)
//   const y = g.op('Transpose', [x, c], {T: A.type('float32')});  // a node; returns 'name' (port 0)
//   g.output(y);                                               // 'name' or 'name:1'; {dtype} overrides the
//                                                              // reference's element type (int64 outputs)
// Input fills: {uniform: [lo, hi]} (default [-2, 2] for floats), {int: [lo, hi]} (default [-5, 5]),
// {values: [...]} (repeated), {bool: true} (random booleans).
//
// Functions (graph library.function, for If/While/PartitionedCall):
//   g.func('body', [['x', 'float32']], [['y', 'float32']], (f) => {   // arguments and results: [name, dtype]
//     const c = f.const('c', 'float32', [], [2]);                      // a Const inside the function
//     return [f.op('Mul', ['x', c], {T: A.type('float32')})];          // arguments are read by name; a node's
//   });                                                                // tensor is 'node:output:0' (f.out(t, k))
//   g.op('StatelessWhile', [x], {T: A.types(['float32']), cond: A.func('cond'), body: A.func('body')});
// A case may also give `reference(g)`: a graph TF.js runs in place of build's to compute the expected outputs (same
// inputs and outputs), for operators TF.js cannot run itself (PartitionedCall: TF.js's converter inlines calls).
// Where neither can run, a case gives `expected(t, tf)` instead: JS computing the outputs from TensorFlow's
// definition (t: every input and Const by name, as tf.Tensors; returns tf.Tensors or {dtype, shape, values}).
// model.json's generatedBy then says which kind of reference the case has.

export const DT = {
  float32: 'DT_FLOAT', int32: 'DT_INT32', int64: 'DT_INT64', bool: 'DT_BOOL', string: 'DT_STRING',
  float64: 'DT_DOUBLE', uint8: 'DT_UINT8', int8: 'DT_INT8', int16: 'DT_INT16', uint16: 'DT_UINT16',
  float16: 'DT_HALF', complex64: 'DT_COMPLEX64', variant: 'DT_VARIANT', resource: 'DT_RESOURCE',
};

// Attribute values (AttrValue in proto3-JSON: int64 as strings, bytes as base64).
export const A = {
  type: (dtype) => ({ type: DT[dtype] }),
  i: (v) => ({ i: String(v) }),
  f: (v) => ({ f: v }),
  b: (v) => ({ b: v }),
  s: (text) => ({ s: Buffer.from(text, 'utf8').toString('base64') }),
  ints: (list) => ({ list: { i: list.map(String) } }),
  floats: (list) => ({ list: { f: list } }),
  types: (list) => ({ list: { type: list.map((t) => DT[t]) } }),
  strings: (list) => ({ list: { s: list.map((t) => Buffer.from(t, 'utf8').toString('base64')) } }),
  shape: (dims) => ({ shape: dims === null ? { unknownRank: true } : { dim: dims.map((d) => ({ size: String(d) })) } }),
  func: (name, attr = {}) => ({ func: { name, attr } }),
};

export class GraphBuilder {
  constructor() {
    this.nodes = [];
    this.inputs = [];   // {name, dtype, shape, fill}
    this.consts = [];   // {name, dtype, shape, values}
    this.outputs = [];  // {name, dtype?}
    this.functions = [];  // FunctionDef JSON (library.function)
    this.initNodes = [];  // TF.js's modelInitializer graph (table initialization), run once at load
    this.used = new Set();
  }

  fresh(base) {
    let name = base;
    for (let k = 1; this.used.has(name); ++k) name = `${base}_${k}`;
    this.used.add(name);
    return name;
  }

  // `dims` is the shape the Placeholder declares (-1 for unknown dims, null for unknown rank; default `shape`);
  // `shape` the one fed.
  input(name, dtype, shape, fill = undefined, dims = undefined) {
    name = this.fresh(name);
    this.nodes.push({ name, op: 'Placeholder', attr: { dtype: A.type(dtype), shape: A.shape(dims === undefined ? shape : dims) } });
    this.inputs.push({ name, dtype, shape, fill });
    return name;
  }

  const(name, dtype, shape, values) {
    name = this.fresh(name);
    const size = shape.reduce((a, b) => a * b, 1);
    if (values.length !== size && values.length !== 1) throw new Error(`const ${name}: ${values.length} values for ${size}`);
    if (values.length === 1 && size !== 1) values = new Array(size).fill(values[0]);
    this.nodes.push({ name, op: 'Const', attr: { dtype: A.type(dtype), value: { tensor: { dtype: DT[dtype], tensorShape: { dim: shape.map((d) => ({ size: String(d) })) } } } } });
    this.consts.push({ name, dtype, shape, values });
    return name;
  }

  // A node; `attr` holds AttrValues (see A). Returns its name (its port-0 tensor).
  op(op, inputs, attr = {}, name = undefined) {
    name = this.fresh(name || op);
    this.nodes.push({ name, op, input: inputs, attr });
    return name;
  }

  // A Const / a node of the modelInitializer graph (its Consts are stored in the weights like the others).
  initConst(name, dtype, shape, values) {
    const before = this.nodes.length;
    name = this.const(name, dtype, shape, values);
    this.initNodes.push(...this.nodes.splice(before));
    return name;
  }

  initOp(op, inputs, attr = {}, name = undefined) {
    name = this.fresh(name || op);
    this.initNodes.push({ name, op, input: inputs, attr });
    return name;
  }

  output(tensor, opts = {}) {
    this.outputs.push({ name: tensor.includes(':') ? tensor : `${tensor}:0`, ...opts });
  }

  // A FunctionDef added to the library; `build(f)` returns the results (tensors of f) in order. Returns `name`.
  func(name, inputs, outputs, build) {
    const f = new FunctionBuilder(this);
    const results = build(f);
    if (results.length !== outputs.length) throw new Error(`function ${name}: ${results.length} results for ${outputs.length}`);
    const arg = ([n, dtype]) => ({ name: n, type: DT[dtype] });
    this.functions.push({
      signature: { name, inputArg: inputs.map(arg), outputArg: outputs.map(arg) },
      nodeDef: f.nodes,
      ret: Object.fromEntries(outputs.map(([n], k) => [n, results[k]])),
    });
    return name;
  }
}

// A function body: nodes named uniquely across the whole graph (TF.js looks Consts of functions up in the weights
// by node name), inputs 'node:output:index' as TensorFlow writes them inside functions.
export class FunctionBuilder {
  constructor(graph) {
    this.g = graph;
    this.nodes = [];
  }

  out(tensor, k) { return tensor.replace(/:\d+$/, `:${k}`); }

  const(name, dtype, shape, values) {
    name = this.g.fresh(name);
    const size = shape.reduce((a, b) => a * b, 1);
    if (values.length === 1 && size !== 1) values = new Array(size).fill(values[0]);
    this.nodes.push({ name, op: 'Const', attr: { dtype: A.type(dtype), value: { tensor: { dtype: DT[dtype], tensorShape: { dim: shape.map((d) => ({ size: String(d) })) } } } } });
    this.g.consts.push({ name, dtype, shape, values });
    return `${name}:output:0`;
  }

  op(op, inputs, attr = {}, name = undefined) {
    name = this.g.fresh(name || op);
    this.nodes.push({ name, op, input: inputs, attr });
    return `${name}:output:0`;
  }
}
