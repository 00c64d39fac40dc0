// Writes seed inputs of hostile shapes for the large-input fuzz run (scripts/fuzz), so that the
// committed corpus stays small: deep lists and objects, wide lists, long strings and keys, many keys,
// bytes after the value, each up to about 1 MB, around the limits of src/common/json_input.h.
//   node tests/fuzz/shape_seeds.js DIR TARGET      (TARGET: steps, workload or options)
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [dir, target] = process.argv.slice(2);
if (!dir || !['steps', 'workload', 'options'].includes(target)) {
  process.stderr.write('usage: node tests/fuzz/shape_seeds.js DIR steps|workload|options\n');
  process.exit(2);
}
const MB = 1 << 20;
const deepList = (depth) => '['.repeat(depth) + ']'.repeat(depth);
const deepObject = (depth, key) => `{"${key}":`.repeat(depth) + '0' + '}'.repeat(depth);
const wideList = (bytes) =>
  `[${Array(Math.floor(bytes / 2))
    .fill(0)
    .join(',')}]`;

// A real document of the target, with one field swapped for a hostile shape.
const real = {
  steps: (hostile) =>
    `{"decode": {"rows": [1, 4], "contexts": [8, 64], "ms": [[1, 2], [3, 4]]}, "prefill": {"tokens": [1, 64], "ms": [1, 9]}, "model": ${hostile}}`,
  workload: (hostile) =>
    `{"requests": [{"arrival_ms": 0, "prompt": 3, "answer": 4}, {"arrival_ms": 1, "prompt": 5, "answer": ${hostile}}]}`,
  options: (hostile) => `{"preset": "tiny", "model": {"seed": ${hostile}}}`,
}[target];
const manyRequests = (count) =>
  `{"requests": [${Array.from({ length: count }, (_, i) => `{"arrival_ms": ${i}, "prompt": ${1 + (i % 30)}, "answer": ${1 + (i % 7)}}`).join(',')}]}`;

const seeds = {
  'deep-list-31.json': deepList(31),
  'deep-list-33.json': deepList(33),
  'deep-list-100k.json': deepList(100000),
  'deep-open-500k.json': '['.repeat(500000),
  'deep-object-100k.json': deepObject(100000, 'a'),
  'deep-field.json': real(deepList(40)),
  'wide-list-1mb.json': wideList(MB - 2),
  'wide-field.json': real(wideList(MB / 2)),
  'long-string.json': real(`"${'x'.repeat(MB / 2)}"`),
  'long-key.json': real(`{"${'k'.repeat(5000)}": 1}`),
  'many-keys.json': real(`{${Array.from({ length: 2000 }, (_, i) => `"k${i}": ${i}`).join(',')}}`),
  'trailing-bytes.json': `${real('1')} {"more": 1}`,
  'trailing-nul.json': `${real('1')}\0{"more": 1}`,
  'many-requests.json': manyRequests(9000),
};
fs.mkdirSync(dir, { recursive: true });
for (const [name, text] of Object.entries(seeds)) fs.writeFileSync(path.join(dir, name), text);
