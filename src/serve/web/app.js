// The web page of `onyx serve`: lists the repository's models, shows a model's inputs, outputs and graph, runs it on
// an image or a JSON tensor, and polls /metrics. Plain JavaScript over the server's own Open Inference Protocol
// endpoints; every call carries the bearer token when the user gave one (kept in this tab's sessionStorage).
'use strict';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'onyx-serve-token';
const METRICS_EVERY_MS = 3000;

const state = {
  model: null,       // {name, version}
  metadata: null,    // GET /v2/models/{m}/versions/{v}
  graphUrl: null,    // the blob: URL of the graph picture shown
  lastMetrics: null, // {time, success: Map} for the request rate
};

// ---- the API ---------------------------------------------------------------------------------------------------

class AuthError extends Error {}

async function api(path, options = {}) {
  const headers = new Headers(options.headers || {});
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.set('Authorization', 'Bearer ' + token);
  const response = await fetch(path, {...options, headers});
  if (response.status === 401) {
    showAuth(token ? 'the server refused this token' : '');
    throw new AuthError('this server needs a token');
  }
  return response;
}

// The {"error"} message of a failed answer, or its status line.
async function errorOf(response) {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    if (body && body.error) return body.error;
  } catch (e) { /* not JSON */ }
  return `HTTP ${response.status} ${text.slice(0, 200)}`;
}

async function apiJson(path, options) {
  const response = await api(path, options);
  if (!response.ok) throw new Error(await errorOf(response));
  return response.json();
}

const modelPath = (m) => `/v2/models/${encodeURIComponent(m.name)}/versions/${encodeURIComponent(m.version)}`;

// ---- small DOM helpers -----------------------------------------------------------------------------------------

function el(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

function row(cells) {
  const tr = el('tr');
  for (const c of cells) tr.append(c instanceof Node ? c : el('td', String(c)));
  return tr;
}

function setStatus(text, isError) {
  $('status').textContent = text;
  $('status').className = isError ? 'error' : '';
}

// Six significant digits, without trailing zeros: what the result text shows.
function fmt(v) {
  if (typeof v !== 'number') return String(v);
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return String(Number(v.toPrecision(6)));
}

const shapeText = (shape) => '[' + shape.join(', ') + ']';

// ---- the token -------------------------------------------------------------------------------------------------

function showAuth(message) {
  $('auth').hidden = false;
  $('main').hidden = true;
  $('auth-error').textContent = message || '';
  $('token').focus();
}

$('auth-form').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem(TOKEN_KEY, $('token').value.trim());
  $('token').value = '';
  start();
});

// ---- models ----------------------------------------------------------------------------------------------------

async function loadModels() {
  const index = await apiJson('/v2/repository/index', {method: 'POST', body: '{}'});
  const body = $('models').tBodies[0];
  body.replaceChildren();
  for (const entry of index) {
    const stateCell = el('td', entry.state || 'not loaded', 'state-' + (entry.state || 'none'));
    const tr = row([entry.name, entry.version || '', stateCell, entry.reason || '']);
    tr.dataset.model = entry.name;
    tr.dataset.version = entry.version || '';
    if (entry.state === 'READY') {
      tr.addEventListener('click', () => {
        selectModel({name: entry.name, version: entry.version}).catch((e) => {
          if (!(e instanceof AuthError)) setStatus(e.message, true);
        });
      });
    }
    if (state.model && state.model.name === entry.name && state.model.version === entry.version) {
      tr.classList.add('selected');
    }
    body.append(tr);
  }
  const ready = index.filter((e) => e.state === 'READY');
  setStatus(`${ready.length} of ${index.length} models ready`);
  if (!state.model && ready.length > 0) await selectModel({name: ready[0].name, version: ready[0].version});
}

async function selectModel(model) {
  state.model = model;
  for (const tr of $('models').tBodies[0].rows) {
    tr.classList.toggle('selected', tr.dataset.model === model.name && tr.dataset.version === model.version);
  }
  const meta = await apiJson(modelPath(model));
  state.metadata = meta;
  $('model-section').hidden = false;
  $('model-title').textContent = `${meta.name}, version ${model.version} (${meta.platform})`;
  for (const [id, list] of [['inputs', meta.inputs], ['outputs', meta.outputs]]) {
    const body = $(id).tBodies[0];
    body.replaceChildren(...list.map((t) => row([t.name, t.datatype, shapeText(t.shape)])));
  }
  $('run-input').replaceChildren(...meta.inputs.map((t) => el('option', t.name)));
  $('result').replaceChildren();
  configureImageOptions();
  loadGraph(model);
}

// The picture comes through fetch (it needs the token), then shows as a blob: image, in which no script can run.
async function loadGraph(model) {
  const img = $('graph');
  $('graph-status').textContent = '(drawing…)';
  img.removeAttribute('src');
  if (state.graphUrl) URL.revokeObjectURL(state.graphUrl);
  state.graphUrl = null;
  try {
    const response = await api(modelPath(model) + '/graph.svg');
    if (!response.ok) throw new Error(await errorOf(response));
    const blob = await response.blob();
    if (state.model !== model) return;  // another model was picked meanwhile
    state.graphUrl = URL.createObjectURL(new Blob([blob], {type: 'image/svg+xml'}));
    img.src = state.graphUrl;
    $('graph-status').textContent = '';
  } catch (e) {
    if (!(e instanceof AuthError)) $('graph-status').textContent = '(' + e.message + ')';
  }
}

// ---- the run form ----------------------------------------------------------------------------------------------

function selectedInput() {
  return state.metadata.inputs.find((t) => t.name === $('run-input').value) || state.metadata.inputs[0];
}

// NCHW or NHWC from the input's shape: channels (1, 3 or 4) on one side only; both or neither is ambiguous.
function guessLayout(shape) {
  if (shape.length !== 4) {
    return {layout: 'NCHW', hint: 'the input is not 4-D: images need [N, C, H, W] or [N, H, W, C]'};
  }
  const isChannels = (d) => d === 1 || d === 3 || d === 4;
  const first = isChannels(shape[1]), last = isChannels(shape[3]);
  if (first && !last) return {layout: 'NCHW', hint: 'from the shape'};
  if (last && !first) return {layout: 'NHWC', hint: 'from the shape'};
  return {layout: 'NCHW', hint: 'ambiguous shape: choose'};
}

function configureImageOptions() {
  const shape = selectedInput().shape;
  const guess = guessLayout(shape);
  $('layout').value = guess.layout;
  $('layout-hint').textContent = guess.hint;
  applyLayoutDims();
}

// Fixes height and width from the shape where it gives them; dynamic dims (-1) stay editable (default 224).
function applyLayoutDims() {
  const shape = selectedInput().shape;
  const nchw = $('layout').value === 'NCHW';
  const dims = shape.length === 4 ? (nchw ? [shape[2], shape[3]] : [shape[1], shape[2]]) : [-1, -1];
  for (const [id, d] of [['height', dims[0]], ['width', dims[1]]]) {
    $(id).disabled = d > 0;
    if (d > 0) $(id).value = d;
    else if (!$(id).value) $(id).value = 224;
  }
}

$('layout').addEventListener('change', applyLayoutDims);
$('run-input').addEventListener('change', configureImageOptions);
for (const radio of document.querySelectorAll('input[name=mode]')) {
  radio.addEventListener('change', () => {
    const json = document.querySelector('input[name=mode]:checked').value === 'json';
    $('json-options').hidden = !json;
    $('image-options').hidden = json;
  });
}

async function decodeImage(file) {
  const url = URL.createObjectURL(file);
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    return img;
  } finally {
    URL.revokeObjectURL(url);
  }
}

const SCALES = {
  unit: {mean: [0, 0, 0], std: [255, 255, 255]},
  signed: {mean: [127.5, 127.5, 127.5], std: [127.5, 127.5, 127.5]},
  imagenet: {mean: [0.485 * 255, 0.456 * 255, 0.406 * 255], std: [0.229 * 255, 0.224 * 255, 0.225 * 255]},
  byte: {mean: [0, 0, 0], std: [1, 1, 1]},
};

// The image resized to the input's H x W on a canvas, as a float32 tensor in the chosen layout and value range.
async function imageTensor(input) {
  const file = $('image-file').files[0];
  if (!file) throw new Error('choose an image file');
  if (input.shape.length !== 4) throw new Error(`input '${input.name}' is ${shapeText(input.shape)}, not an image`);
  const nchw = $('layout').value === 'NCHW';
  const c = nchw ? input.shape[1] : input.shape[3];
  if (c !== 1 && c !== 3 && c !== 4) {
    throw new Error(`input '${input.name}' has ${c} channels in ${$('layout').value}: images have 1, 3 or 4`);
  }
  const h = Number($('height').value), w = Number($('width').value);
  if (!(h > 0 && w > 0)) throw new Error('give the height and width to resize to');
  const img = await decodeImage(file);
  const canvas = $('preview');
  canvas.width = w;
  canvas.height = h;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(img, 0, 0, w, h);
  const rgba = ctx.getImageData(0, 0, w, h).data;
  const {mean, std} = SCALES[$('scale').value];
  const order = $('channels').value === 'BGR' ? [2, 1, 0, 3] : [0, 1, 2, 3];
  const data = new Float32Array(c * h * w);
  for (let y = 0; y < h; ++y) {
    for (let x = 0; x < w; ++x) {
      const p = (y * w + x) * 4;
      for (let k = 0; k < c; ++k) {
        // One channel: the luma of the pixel.
        const v = c === 1 ? 0.299 * rgba[p] + 0.587 * rgba[p + 1] + 0.114 * rgba[p + 2] : rgba[p + order[k]];
        const ch = Math.min(k, 2);
        const i = nchw ? (k * h + y) * w + x : (y * w + x) * c + k;
        data[i] = (v - mean[ch]) / std[ch];
      }
    }
  }
  const shape = nchw ? [1, c, h, w] : [1, h, w, c];
  return {name: input.name, shape, datatype: 'FP32', data};
}

// A nested JSON array's shape; throws when it is ragged.
function nestedShape(value) {
  const shape = [];
  let v = value;
  while (Array.isArray(v)) {
    shape.push(v.length);
    v = v[0];
  }
  const check = (a, depth) => {
    if (depth === shape.length) {
      if (Array.isArray(a)) throw new Error('the JSON array is ragged');
      return;
    }
    if (!Array.isArray(a) || a.length !== shape[depth]) throw new Error('the JSON array is ragged');
    for (const x of a) check(x, depth + 1);
  };
  check(value, 0);
  return shape;
}

// The JSON box: a whole request ({"inputs": [...]}) as it is, or an array for the selected input (its shape from
// the nesting, or the input's static shape for a flat array).
function jsonRequest(input) {
  let value;
  try {
    value = JSON.parse($('json-text').value);
  } catch (e) {
    throw new Error('the JSON tensor does not parse: ' + e.message);
  }
  if (value && !Array.isArray(value) && typeof value === 'object') return value;
  if (!Array.isArray(value)) value = [value];
  let shape = nestedShape(value);
  const flat = value.flat(Infinity);
  if (shape.length === 1 && input.shape.length !== 1) {
    if (input.shape.some((d) => d < 0)) {
      throw new Error(`input '${input.name}' has dynamic dims ${shapeText(input.shape)}: give a nested array`);
    }
    shape = input.shape;
  }
  return {inputs: [{name: input.name, shape, datatype: input.datatype, data: flat}]};
}

// ---- outputs ---------------------------------------------------------------------------------------------------

const TYPED = {
  FP32: Float32Array, FP64: Float64Array, INT8: Int8Array, INT16: Int16Array, INT32: Int32Array,
  INT64: BigInt64Array, UINT8: Uint8Array, UINT16: Uint16Array, UINT32: Uint32Array, UINT64: BigUint64Array,
  BOOL: Uint8Array,
};

function halfToFloat(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

// The values of one binary output (the binary tensor extension's layout), as a plain array.
function decodeBinary(datatype, bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (datatype === 'BYTES') {
    const out = [];
    const text = new TextDecoder();
    for (let p = 0; p + 4 <= bytes.length;) {
      const n = view.getUint32(p, true);
      out.push(text.decode(bytes.subarray(p + 4, p + 4 + n)));
      p += 4 + n;
    }
    return out;
  }
  if (datatype === 'FP16' || datatype === 'BF16') {
    const out = new Array(bytes.length / 2);
    for (let i = 0; i < out.length; ++i) {
      const h = view.getUint16(2 * i, true);
      out[i] = datatype === 'FP16' ? halfToFloat(h) : new Float32Array(new Uint32Array([h << 16]).buffer)[0];
    }
    return out;
  }
  const Typed = TYPED[datatype];
  if (!Typed) throw new Error('cannot show datatype ' + datatype);
  const copy = bytes.slice();  // aligned
  const values = Array.from(new Typed(copy.buffer));
  return datatype === 'BOOL' ? values.map((v) => v !== 0) : values.map((v) => (typeof v === 'bigint' ? Number(v) : v));
}

// The response's outputs with their values as plain arrays, JSON or binary alike.
async function parseInferResponse(response) {
  const headerLength = response.headers.get('Inference-Header-Content-Length');
  const buffer = new Uint8Array(await response.arrayBuffer());
  const jsonLength = headerLength === null ? buffer.length : Number(headerLength);
  const body = JSON.parse(new TextDecoder().decode(buffer.subarray(0, jsonLength)));
  let offset = jsonLength;
  for (const out of body.outputs) {
    const size = out.parameters && out.parameters.binary_data_size;
    if (size !== undefined) {
      out.data = decodeBinary(out.datatype, buffer.subarray(offset, offset + size));
      offset += size;
    } else {
      out.data = (out.data || []).flat(Infinity);
    }
  }
  return body;
}

const isFloat = (t) => t === 'FP32' || t === 'FP64' || t === 'FP16' || t === 'BF16';

// A classifier's scores: a float output [1, N] or [N] with N > 1.
function isScores(out) {
  const s = out.shape;
  return isFloat(out.datatype) && ((s.length === 2 && s[0] === 1 && s[1] > 1) || (s.length === 1 && s[0] > 1));
}

function showOutput(out) {
  const box = el('div', undefined, 'output');
  box.dataset.name = out.name;
  box.append(el('h4', out.name), el('div', `${out.datatype} ${shapeText(out.shape)}`, 'shape'));
  const values = out.data;
  if (isScores(out)) {
    const top = values.map((v, i) => [i, v]).sort((a, b) => b[1] - a[1]).slice(0, 5);
    const table = el('table', undefined, 'topk');
    table.append(row([el('th', 'index'), el('th', 'score')]));
    for (const [i, v] of top) table.append(row([i, fmt(v)]));
    box.append(el('div', `top ${top.length} of ${values.length}`, 'hint'), table);
  } else if (values.length > 0 && typeof values[0] === 'number') {
    let min = Infinity, max = -Infinity, sum = 0;
    for (const v of values) {
      if (v < min) min = v;
      if (v > max) max = v;
      sum += v;
    }
    box.append(el('div', `min ${fmt(min)} max ${fmt(max)} mean ${fmt(sum / values.length)}`, 'stats'));
  }
  const first = values.slice(0, 8).map(fmt).join(', ') + (values.length > 8 ? ', …' : '');
  box.append(el('div', `first values: ${first}`, 'values'));
  return box;
}

// ---- running ---------------------------------------------------------------------------------------------------

// One FP32 input as the binary tensor extension (JSON header + raw bytes); outputs come back binary too.
function binaryBody(tensor) {
  const header = JSON.stringify({
    inputs: [{name: tensor.name, shape: tensor.shape, datatype: 'FP32',
              parameters: {binary_data_size: tensor.data.byteLength}}],
    parameters: {binary_data_output: true},
  });
  const json = new TextEncoder().encode(header);
  const body = new Uint8Array(json.length + tensor.data.byteLength);
  body.set(json, 0);
  body.set(new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength), json.length);
  const headers = {'Content-Type': 'application/octet-stream', 'Inference-Header-Content-Length': String(json.length)};
  return {body, headers};
}

async function run() {
  const input = selectedInput();
  const model = state.model;
  const result = $('result');
  result.replaceChildren(el('div', 'running…', 'hint'));
  let request;
  if (document.querySelector('input[name=mode]:checked').value === 'json') {
    const body = jsonRequest(input);
    body.parameters = {...(body.parameters || {}), binary_data_output: true};
    request = {body: JSON.stringify(body), headers: {'Content-Type': 'application/json'}};
  } else {
    const tensor = await imageTensor(input);
    if ($('encoding').value === 'binary') {
      request = binaryBody(tensor);
    } else {
      const body = {inputs: [{...tensor, data: Array.from(tensor.data)}], parameters: {binary_data_output: true}};
      request = {body: JSON.stringify(body), headers: {'Content-Type': 'application/json'}};
    }
  }
  const started = performance.now();
  const response = await api(modelPath(model) + '/infer', {method: 'POST', ...request});
  if (!response.ok) throw new Error(await errorOf(response));
  const answer = await parseInferResponse(response);
  const ms = performance.now() - started;
  result.replaceChildren(el('div', `${answer.model_name} version ${answer.model_version}: ` +
                                   `${answer.outputs.length} outputs in ${ms.toFixed(1)} ms`, 'summary'),
                         ...answer.outputs.map(showOutput));
  result.dataset.done = String(Number(result.dataset.done || 0) + 1);
}

$('run-form').addEventListener('submit', (event) => {
  event.preventDefault();
  $('run').disabled = true;
  run().catch((e) => {
    if (!(e instanceof AuthError)) $('result').replaceChildren(el('div', e.message, 'error'));
  }).finally(() => { $('run').disabled = false; });
});

// ---- metrics ---------------------------------------------------------------------------------------------------

// The Prometheus text's per-model series this page shows, by "model\tversion".
function parseMetrics(text) {
  const series = new Map();
  const line = /^(onyx_inference_[a-z_]+)\{([^}]*)\} (\S+)$/;
  for (const l of text.split('\n')) {
    const m = line.exec(l);
    if (!m) continue;
    const labels = {};
    for (const [, k, v] of m[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v.replace(/\\(.)/g, '$1');
    const key = labels.model + '\t' + labels.version;
    if (!series.has(key)) series.set(key, {model: labels.model, version: labels.version});
    const s = series.get(key);
    const v = Number(m[3]);
    if (m[1] === 'onyx_inference_requests_total') s[labels.status] = v;
    else if (m[1] === 'onyx_inference_request_duration_seconds_sum') s.durationSum = v;
    else if (m[1] === 'onyx_inference_request_duration_seconds_count') s.durationCount = v;
    else if (m[1] === 'onyx_inference_compute_seconds_total') s.computeSum = v;
  }
  return series;
}

async function pollMetrics() {
  try {
    const response = await api('/metrics');
    if (!response.ok) throw new Error(await errorOf(response));
    const series = parseMetrics(await response.text());
    const now = performance.now();
    const previous = state.lastMetrics;
    const rows = [];
    for (const [key, s] of series) {
      const success = s.success || 0, failure = s.failure || 0;
      let rate = '';
      if (previous && previous.counts.has(key)) {
        rate = ((success + failure - previous.counts.get(key)) / ((now - previous.time) / 1000)).toFixed(2);
      }
      const ms = (sum, n) => (n > 0 ? fmt((1000 * sum) / n) + ' ms' : '');
      const tr = row([s.model, s.version, success, failure, rate, ms(s.durationSum || 0, s.durationCount || 0),
                      ms(s.computeSum || 0, success + failure)]);
      tr.dataset.model = s.model;
      tr.dataset.version = s.version;
      rows.push(tr);
    }
    $('metrics').tBodies[0].replaceChildren(...rows);
    const counts = new Map([...series].map(([k, s]) => [k, (s.success || 0) + (s.failure || 0)]));
    state.lastMetrics = {time: now, counts};
  } catch (e) {
    if (!(e instanceof AuthError)) setStatus('metrics: ' + e.message, true);
  }
}

// ---- start -----------------------------------------------------------------------------------------------------

let metricsTimer = null;

async function start() {
  try {
    const server = await apiJson('/v2');
    $('server-info').textContent = `${server.name} ${server.version}`;
    $('auth').hidden = true;
    $('main').hidden = false;
    await loadModels();
    await pollMetrics();
    if (metricsTimer === null) metricsTimer = setInterval(pollMetrics, METRICS_EVERY_MS);
  } catch (e) {
    if (!(e instanceof AuthError)) setStatus(e.message, true);
  }
}

// A click on the graph switches between fitting the panel and the drawing's own size (scroll to pan).
$('graph').addEventListener('click', () => $('graph').classList.toggle('zoomed'));
$('refresh').addEventListener('click', () => loadModels().catch((e) => setStatus(e.message, true)));
start();
