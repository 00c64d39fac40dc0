// The libraries keep their layers (issue 15): measure (src/bench) sits on the model alone, the lab
// runner and the kernel benchmark (src/lab) sit above both bench and the simulator, the serving
// engine's clock is the common one rather than bench's, and no optimisation level is forced on every
// build type, so that a Debug build is one.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');
const sources = (dir) => fs.readdirSync(path.join(root, dir)).filter((f) => /\.(h|cpp)$/.test(f)).map((f) => `${dir}/${f}`);
const includes = (file) => [...read(file).matchAll(/^#include "([^"]+)"/gm)].map((m) => m[1]);

test('bench includes and links neither the simulator nor the lab above it', () => {
  for (const file of sources('src/bench')) {
    const above = includes(file).filter((h) => h.startsWith('sim/') || h.startsWith('lab/') || h.startsWith('serve/'));
    assert.deepEqual(above, [], file);
  }
  assert.match(read('src/bench/CMakeLists.txt'), /target_link_libraries\(kvlab_bench PUBLIC kvlab_model\)/);
  assert.match(read('src/lab/CMakeLists.txt'), /target_link_libraries\(kvlab_lab PUBLIC kvlab_bench kvlab_sim\)/);
});

test('the simulator includes nothing of bench, lab or serve, and the engine does not take its clock from bench', () => {
  for (const file of sources('src/sim')) {
    const above = includes(file).filter((h) => /^(bench|lab|serve|model)\//.test(h));
    assert.deepEqual(above, [], file);
  }
  for (const file of sources('src/serve')) assert.ok(!includes(file).includes('bench/step_timer.h'), file);
  assert.ok(includes('src/serve/run_clock.cpp').includes('common/clock.h'));
});

test('no optimisation level is set outside the build type', () => {
  const cmakeFiles = ['CMakeLists.txt', 'cmake/flags.cmake', ...fs.readdirSync(path.join(root, 'src')).map((d) => `src/${d}/CMakeLists.txt`)]
    .filter((f) => fs.existsSync(path.join(root, f)));
  for (const file of cmakeFiles) {
    const code = read(file).split('\n').filter((line) => !line.trim().startsWith('#')).join('\n');
    assert.doesNotMatch(code, /-O[0-3sz]\b/, file);
  }
});
