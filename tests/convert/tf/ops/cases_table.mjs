// Lookup tables: HashTableV2 filled with constants by LookupTableImportV2 (a control input of the look-up, or a node
// of TF.js's modelInitializer graph), read by LookupTableFindV2 / LookupTableSizeV2 -> ai.onnx.ml LabelEncoder.
import { A } from './lib.mjs';

const S = A.type('string');
const L = A.type('int64');
const F = A.type('float32');

// keys -> values with `fallback`; `where` puts the import in the graph ('graph') or in the initializer ('init').
function tableCase(name, { keyType, valueType, keys, values, fallback, x, where = 'graph', outDtype }) {
  return {
    name,
    build(g) {
      const input = g.input('x', keyType, [x.length], { values: x });
      const attrs = { key_dtype: A.type(keyType), value_dtype: A.type(valueType) };
      const io = { Tin: A.type(keyType), Tout: A.type(valueType) };
      let control = [];
      if (where === 'init') {
        const table = g.initOp('HashTableV2', [], attrs, 'table');
        const k = g.initConst('keys', keyType, [keys.length], keys);
        const v = g.initConst('values', valueType, [values.length], values);
        g.initOp('LookupTableImportV2', [table, k, v], io);
        g.nodes.push({ name: table, op: 'HashTableV2', attr: attrs });  // the same table: TF.js matches it by name
      } else {
        g.op('HashTableV2', [], attrs, 'table');
        const k = g.const('keys', keyType, [keys.length], keys);
        const v = g.const('values', valueType, [values.length], values);
        control = [`^${g.op('LookupTableImportV2', ['table', k, v], io)}`];
      }
      const def = g.const('default', valueType, [], [fallback]);
      const r = g.op('LookupTableFindV2', ['table', input, def, ...control], io);
      g.output(r, outDtype ? { dtype: outDtype } : {});
    },
  };
}

export const cases = [
  tableCase('LookupTableFindV2_string_to_int64', {
    keyType: 'string', valueType: 'int64', keys: ['cat', 'dog', 'emu'], values: [10, 20, 30], fallback: -1,
    x: ['dog', 'cat', 'yak', 'emu', ''], outDtype: 'int64' }),
  tableCase('LookupTableFindV2_int64_to_string', {
    keyType: 'int64', valueType: 'string', keys: [3, 1, 7], values: ['three', 'one', 'seven'], fallback: '?',
    x: [1, 2, 7, 3, 3, -1] }),
  tableCase('LookupTableFindV2_string_to_float', {
    keyType: 'string', valueType: 'float32', keys: ['a', 'b'], values: [0.5, -2.25], fallback: 9.5,
    x: ['b', 'a', 'c', 'b'] }),
  tableCase('LookupTableFindV2_initializer_graph', {
    keyType: 'string', valueType: 'int64', keys: ['x', 'y', 'z'], values: [1, 2, 3], fallback: 0,
    x: ['z', 'x', 'w'], where: 'init', outDtype: 'int64' }),
];
