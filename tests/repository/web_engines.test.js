// The Firefox pass's list (tests/web/engines.mjs) stays true to the folder: each file it leaves to
// Chromium exists and says why, and the pass runs every other test file of tests/web.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const webTests = path.resolve(__dirname, '../web');

test('each file the Firefox pass leaves to Chromium exists and says why; the pass runs the rest', async () => {
  const { FIREFOX_SKIPS, firefoxFiles, testFiles } = await import(path.join(webTests, 'engines.mjs'));
  const files = testFiles();
  assert.deepEqual(
    files,
    fs
      .readdirSync(webTests)
      .filter((name) => name.endsWith('.test.mjs'))
      .sort()
  );
  for (const [name, why] of Object.entries(FIREFOX_SKIPS)) {
    assert.ok(files.includes(name), `engines.mjs names ${name}, which tests/web does not hold`);
    assert.ok(typeof why === 'string' && why.length > 20, `${name}: say why Firefox leaves it to Chromium`);
  }
  assert.deepEqual([...firefoxFiles(), ...Object.keys(FIREFOX_SKIPS)].sort(), files);
  assert.ok(firefoxFiles().includes('page.test.mjs'), 'the Firefox pass runs the page itself');
});
