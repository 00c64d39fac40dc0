// The lab's real model: before a run on one, its files are fetched (a model served beside the page,
// streamed, its progress in bytes) or read (the reader's own files, which never leave the browser),
// and loaded into the module (m.loadModel) in the run's weight and KV formats. A model stays loaded
// for the next run with the same files and formats; a fetched model's bytes stay here, so that a run in
// other formats fetches nothing again.

import { CATALOG } from '../generated/catalog.js';
import { shippedFileUrls, shippedModel } from '../models/shipped.js';

const MB = 1e6;
let loadedKey = null;
let loadedInfo = null; // the loaded model's facts (m.loadModel's reply)
const fetchedBytes = new Map(); // a shipped model's name -> its files' bytes

// A problem with the model's files: not the module's fault, so the worker carries on (a RangeError,
// see postRunError), and the page shows it at the model's field (error.path "model...").
function modelError(message, path = 'model') {
  const error = new RangeError(message);
  error.path = path;
  return error;
}

// Fetches every file of `urls` ({role: url}) at once, reading the bodies in turn; onBytes(received,
// total) as the bytes arrive (total: the sum of the sizes the server announced). Returns {role: bytes}.
async function fetchFiles(urls, onBytes) {
  const roles = Object.keys(urls);
  let responses;
  try {
    responses = await Promise.all(roles.map((role) => fetch(urls[role])));
  } catch (error) {
    throw modelError(`The model's files could not be fetched (${error.message}).`);
  }
  responses.forEach((response, i) => {
    if (!response.ok)
      throw modelError(`The model file ${urls[roles[i]]} could not be fetched: HTTP ${response.status}.`);
  });
  const total = responses.reduce((sum, response) => sum + (Number(response.headers.get('content-length')) || 0), 0);
  let received = 0;
  const files = {};
  for (const [i, response] of responses.entries()) {
    const chunks = [];
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      onBytes(received, Math.max(total, received));
    }
    const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    files[roles[i]] = bytes;
  }
  return files;
}

// The reader's files, each refused by its size if the module could not load it
// (limits.model_file_bytes, the module's own). The module reads them itself, a piece at a time.
function checkPicked(picked) {
  const maxBytes = CATALOG.limits.model_file_bytes.max;
  for (const file of Object.values(picked))
    if (file.size > maxBytes)
      throw modelError(
        `Model file: ${file.name} is ${(file.size / MB).toFixed(0)} MB; kvlab loads model files of at most ${(maxBytes / MB).toFixed(0)} MB.`
      );
  return picked;
}

const fileKey = (picked) =>
  Object.entries(picked)
    .map(([role, file]) => `${role}:${file.name}:${file.size}:${file.lastModified}`)
    .join('|');

// model: {choice, weights, kv, files?, name?} (config.js modelToLoad; files and name: the picked files,
// for the "file" choice); progress(fraction, phase). Returns the loaded model's facts (its sizes, its
// weights as the module holds them: weight_bytes and weight_types), loaded now or already.
export async function ensureModel(m, model, progress) {
  const shipped = shippedModel(model.choice);
  if (!shipped && !model.files)
    throw modelError('Choose a model file first: a .gguf file, or a llama2.c checkpoint and its tokenizer file.');
  const key = [model.choice, model.weights, model.kv, shipped ? '' : fileKey(model.files)].join('/');
  if (key === loadedKey) return loadedInfo;
  loadedKey = null;
  let files;
  if (shipped) {
    files = fetchedBytes.get(shipped.name);
    if (!files) {
      progress(0, `Fetching ${shipped.name}`);
      files = await fetchFiles(shippedFileUrls(shipped), (received, total) =>
        progress(
          received / total,
          `Fetching ${shipped.name}: ${(received / MB).toFixed(1)} of ${(total / MB).toFixed(1)} MB`
        )
      );
      fetchedBytes.set(shipped.name, files);
    }
  } else {
    files = checkPicked(model.files);
  }
  progress(1, shipped ? `Loading ${shipped.name}` : `Reading and loading ${model.name}`);
  const name = shipped ? shipped.name : model.name;
  let info;
  try {
    info = m.loadModel(files, { weights: model.weights, kv: model.kv, name });
  } catch (error) {
    if (!(error instanceof RangeError || error instanceof TypeError)) throw error;
    throw modelError(`${name} could not be read: ${error.message}`, `model.${error.path || 'files'}`);
  }
  loadedKey = key;
  loadedInfo = info;
  return info;
}
