// Reference outputs of recurrent layers with TF.js 4.22 (tfjs-layers), for TFLite recurrent cases LiteRT.js cannot
// run (it does not support the variable tensors that hold their states). Reads a JSON spec on stdin:
//   {kind: "lstm" | "rnn" | "bilstm" | "birnn", units, input: {shape, data}, weights: [[shape, data], ...] (Keras order:
//    kernel [in, G*units], recurrent_kernel [units, G*units], bias [G*units]; gates i f c o; bilstm / birnn: forward
//    then backward)}
// and prints {shape, data} of the sequence output (return_sequences, zero initial states, tanh / sigmoid).
// usage: NODE_PATH=~/.cache/onyx-keras/node_modules node tfjs_rnn_refs.js < spec.json
const tf = require('@tensorflow/tfjs');

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const spec = JSON.parse(Buffer.concat(chunks).toString());
  await tf.setBackend('cpu');
  const common = {units: spec.units, returnSequences: true, activation: 'tanh'};
  let layer;
  if (spec.kind === 'rnn') {
    layer = tf.layers.simpleRNN(common);
  } else if (spec.kind === 'lstm') {
    layer = tf.layers.lstm({...common, recurrentActivation: 'sigmoid'});
  } else if (spec.kind === 'birnn') {
    layer = tf.layers.bidirectional({layer: tf.layers.simpleRNN(common), mergeMode: 'concat'});
  } else {
    layer = tf.layers.bidirectional(
        {layer: tf.layers.lstm({...common, recurrentActivation: 'sigmoid'}), mergeMode: 'concat'});
  }
  const x = tf.tensor(spec.input.data, spec.input.shape, 'float32');
  layer.apply(x);  // builds the weights
  layer.setWeights(spec.weights.map(([shape, data]) => tf.tensor(data, shape, 'float32')));
  const y = layer.apply(x);
  process.stdout.write(JSON.stringify({shape: y.shape, data: Array.from(await y.data())}));
}
main();
