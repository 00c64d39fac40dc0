// A result's link: what a reader sends to compare devices. It carries, with no server, the lab's
// settings, what the chapters compare (Part A's times, the decode step table, each policy's totals) and
// the device's description, and which of those figures were noisy (shared/noisy.js), as JSON, deflated (CompressionStream 'deflate-raw') and base64url-encoded
// into the hash (#result=...), within the page's hash limit. A checksum (FNV-1a over the JSON: it finds
// a link that was cut or edited, it is not a signature) and a strict reading refuse a bad link with a
// message, never with a crash.

import { MAX_HASH_CHARS, settingsToHash } from '../config.js';
import { shownDuration } from '../shared/format.js';
import { noisyAnswerPaths, noisyCells } from '../shared/noisy.js';

export const SHARE_KEY = 'result';
const FORMAT = 1;
const MAX_JSON_CHARS = 65536; // a link cannot inflate into more than this
// The step table's times and the ratios, as the link keeps them: enough that the tokens/s the
// comparison derives from a step reads as on the device that measured it. The times the comparison
// shows as they are (Part A's, the queue's) keep what their text shows (shownDuration).
const SIGNIFICANT_DIGITS = 6;
const MAX_TEXT_CHARS = 200;
const MAX_GRID = 64; // rows or contexts in the step table
const POLICY_KEYS = ['makespan_ms', 'median_ttft_ms', 'p95_ttft_ms', 'tokens_per_s'];
const PATHS = ['nocache', 'cache'];

export class ShareError extends Error {}

const round = (value) => Number(value.toPrecision(SIGNIFICANT_DIGITS));
const policyFigure = (key, value) => (key.endsWith('_ms') ? shownDuration(value) : round(value));

function checksum(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

// The device's description, in words a reader recognises.
function deviceOf(environment = {}, model = {}) {
  return {
    browser: String(environment.browser || 'a browser').slice(0, MAX_TEXT_CHARS),
    platform: String(environment.platform || 'an unknown system').slice(0, MAX_TEXT_CHARS),
    logical_cores: Number(environment.logical_cores) || null,
    instruction_set: String(model.instruction_set || (environment.wasm_simd ? 'wasm simd128' : 'wasm')).slice(
      0,
      MAX_TEXT_CHARS
    ),
  };
}

// What a finished lab result's link carries.
export function shareRecord(result) {
  const { decode } = result.steps;
  const noisyDecode = noisyCells(result.steps)
    .filter((c) => c.grid === 'decode')
    .map((c) => ({ rows: c.rows, context: c.context, spread: round(c.spread) }));
  return {
    format: FORMAT,
    settings: settingsToHash(result.settings),
    device: deviceOf(result.environment, result.steps.model),
    answer: {
      prompt_tokens: result.answer.prompt_tokens,
      answer_tokens: result.answer.answer_tokens,
      nocache_ms: shownDuration(result.answer.nocache_ms.median),
      cache_ms: shownDuration(result.answer.cache_ms.median),
      ratio: round(result.answer.ratio),
      noisy: noisyAnswerPaths(result.answer).map((p) => ({ path: p.path, spread: round(p.spread) })),
    },
    steps: {
      decode: {
        rows: decode.rows,
        contexts: decode.contexts,
        ms: decode.ms.map((row) => row.map(round)),
        noisy: noisyDecode,
      },
    },
    policies: Object.fromEntries(
      result.policy_order.map((name) => [
        name,
        Object.fromEntries(POLICY_KEYS.map((key) => [key, policyFigure(key, result.policies[name][key])])),
      ])
    ),
    // The queue is priced on the step table: a noisy cell anywhere in it makes the queue's figures noisy.
    noisy: result.noisy === true || noisyCells(result.steps).length > 0,
  };
}

function toBase64Url(bytes) {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function pipe(bytes, transform) {
  const stream = new Blob([bytes]).stream().pipeThrough(transform);
  const reader = stream.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_JSON_CHARS) {
      await reader.cancel();
      throw new ShareError(`it inflates into more than ${MAX_JSON_CHARS.toLocaleString('en-US')} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

// The token for the hash (#result=TOKEN), or null when it would pass the page's hash limit.
export async function encodeShare(record) {
  const json = JSON.stringify(record);
  const bytes = new TextEncoder().encode(JSON.stringify({ record, check: checksum(json) }));
  const token = toBase64Url(await pipe(bytes, new CompressionStream('deflate-raw')));
  return token.length + SHARE_KEY.length + 1 <= MAX_HASH_CHARS ? token : null;
}

const isNumber = (v, low = 0) => typeof v === 'number' && Number.isFinite(v) && v >= low;
const isText = (v) => typeof v === 'string' && v.length <= MAX_TEXT_CHARS;

// The noisy flags, which a link made before they existed does not carry (then nothing is marked).
function checkNoisy({ answer, steps, noisy }) {
  const fail = (what) => {
    throw new ShareError(what);
  };
  const list = (value, item, max) =>
    value === undefined || (Array.isArray(value) && value.length <= max && value.every(item));
  if (answer.ratio !== undefined && !isNumber(answer.ratio)) fail('answer.ratio: not a number of 0 or more');
  if (!list(answer.noisy, (p) => p && PATHS.includes(p.path) && isNumber(p.spread), PATHS.length))
    fail('answer.noisy: a list of noisy paths (nocache, cache) with their spreads');
  const { decode } = steps;
  const cell = (c) => c && decode.rows.includes(c.rows) && decode.contexts.includes(c.context) && isNumber(c.spread);
  if (!list(decode.noisy, cell, decode.rows.length * decode.contexts.length))
    fail('steps.decode.noisy: a list of the table’s cells with their spreads');
  if (noisy !== undefined && typeof noisy !== 'boolean') fail('noisy: true or false');
}

// Throws a ShareError naming the first part of the record that is not what a link carries.
function checkRecord(record) {
  const fail = (what) => {
    throw new ShareError(what);
  };
  if (!record || typeof record !== 'object') fail('it holds no result');
  if (record.format !== FORMAT) fail(`its format is ${JSON.stringify(record.format)}, not ${FORMAT}`);
  if (typeof record.settings !== 'string' || record.settings.length > MAX_HASH_CHARS)
    fail('settings: not a link’s settings');
  const { device, answer, steps, policies } = record;
  if (!device || !['browser', 'platform', 'instruction_set'].every((k) => isText(device[k])))
    fail('device: not a description');
  if (!answer || !['prompt_tokens', 'answer_tokens', 'nocache_ms', 'cache_ms'].every((k) => isNumber(answer[k])))
    fail('answer: its times are not numbers of 0 or more');
  const decode = steps && steps.decode;
  const grid = (list) =>
    Array.isArray(list) && list.length > 0 && list.length <= MAX_GRID && list.every((v) => isNumber(v, 1));
  if (!decode || !grid(decode.rows) || !grid(decode.contexts))
    fail('steps.decode: rows and contexts from 1, up to 64 each');
  if (
    !Array.isArray(decode.ms) ||
    decode.ms.length !== decode.rows.length ||
    !decode.ms.every(
      (row) => Array.isArray(row) && row.length === decode.contexts.length && row.every((v) => isNumber(v))
    )
  )
    fail('steps.decode.ms: one time of 0 or more for each row count and context');
  checkNoisy(record);
  if (!policies || typeof policies !== 'object' || Object.keys(policies).length > 16)
    fail('policies: not a policy list');
  for (const [name, totals] of Object.entries(policies)) {
    if (!isText(name) || !totals || !POLICY_KEYS.every((k) => isNumber(totals[k])))
      fail(`policies: ${name.slice(0, 40)} lacks its totals`);
  }
}

// The record a token carries; throws a ShareError saying why a link cannot be read.
export async function decodeShare(token) {
  const refuse = (why) => new ShareError(`This link’s shared result cannot be read: ${why}. Ask for the link again.`);
  if (typeof token !== 'string' || !token || token.length > MAX_HASH_CHARS || !/^[A-Za-z0-9_-]+$/.test(token))
    throw refuse('it is not a result link');
  let parsed;
  try {
    const json = new TextDecoder('utf-8', { fatal: true }).decode(
      await pipe(fromBase64Url(token), new DecompressionStream('deflate-raw'))
    );
    parsed = JSON.parse(json);
  } catch (error) {
    throw refuse(error instanceof ShareError ? error.message : 'it was cut or changed on the way');
  }
  if (!parsed || typeof parsed !== 'object' || parsed.check !== checksum(JSON.stringify(parsed.record)))
    throw refuse('its checksum does not match: it was cut or changed on the way');
  try {
    checkRecord(parsed.record);
  } catch (error) {
    throw refuse(error.message);
  }
  return parsed.record;
}
