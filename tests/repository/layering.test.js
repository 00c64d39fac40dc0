// The libraries keep their layers, bottom up: common; model (the transformer); model_files (its files and
// text: GGUF, llama2.c, the tokenizer, stories); policy (the serving policies and the backend
// interface they run against); sim (the priced backend, its tables, workloads and reports); measure
// (timing the model, filling the simulator's table types); serve (the real engine); experiments (lab,
// replay, kernel bench: what compares); cli and wasm on top. A folder includes only from the folders
// below it, the engine's clock is the common one rather than measure's, and no optimisation level is
// forced on every build type, so that a Debug build is one.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');
const sources = (dir) =>
  fs
    .readdirSync(path.join(root, dir))
    .filter((f) => /\.(h|cpp)$/.test(f))
    .map((f) => `${dir}/${f}`);
const includes = (file) => [...read(file).matchAll(/^#include "([^"]+)"/gm)].map((m) => m[1]);

// What each folder may include from, besides itself.
const allowed = {
  common: [],
  model: ['common'],
  model_files: ['common', 'model'],
  policy: ['common'],
  sim: ['common', 'policy'],
  measure: ['common', 'model', 'model_files', 'sim'],
  serve: ['common', 'model', 'policy', 'sim'],
  experiments: ['common', 'model', 'model_files', 'policy', 'sim', 'measure', 'serve'],
};

for (const [folder, below] of Object.entries(allowed)) {
  test(`src/${folder} includes only from ${below.length ? below.join(', ') : 'itself'}`, () => {
    for (const file of sources(`src/${folder}`)) {
      const upward = includes(file).filter((h) => {
        const top = h.split('/')[0];
        return h.includes('/') && top !== folder && !below.includes(top);
      });
      assert.deepEqual(upward, [], file);
    }
  });
}

test('measure reads only the table types of the simulator, and the engine only its workload limits', () => {
  const simHeaders = (folder) =>
    sources(`src/${folder}`)
      .flatMap(includes)
      .filter((h) => h.startsWith('sim/'));
  assert.deepEqual([...new Set(simHeaders('measure'))].sort(), [
    'sim/after_prompt.h',
    'sim/prompt_pass.h',
    'sim/step_table.h',
  ]);
  assert.deepEqual([...new Set(simHeaders('serve'))], ['sim/workload.h']);
});

test('the engine does not take its clock from measure', () => {
  for (const file of sources('src/serve')) assert.ok(!includes(file).includes('measure/step_timer.h'), file);
  assert.ok(includes('src/serve/run_clock.cpp').includes('common/clock.h'));
});

test('no optimisation level is set outside the build type', () => {
  const cmakeFiles = [
    'CMakeLists.txt',
    'cmake/flags.cmake',
    ...fs.readdirSync(path.join(root, 'src')).map((d) => `src/${d}/CMakeLists.txt`),
  ].filter((f) => fs.existsSync(path.join(root, f)));
  for (const file of cmakeFiles) {
    const code = read(file)
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    assert.doesNotMatch(code, /-O[0-3sz]\b/, file);
  }
});
