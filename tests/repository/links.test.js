// The repository stands on its own: every relative link in the README and docs/ names a file inside the
// clone, and no tracked file points at the design folder outside it (which a clone does not have).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const root = path.resolve(__dirname, '../..');
const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
const markdown = tracked.filter((file) => file.endsWith('.md'));

function relativeLinks(text) {
  const links = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1].split('#')[0];
    if (target && !/^[a-z]+:/i.test(target)) links.push(target);
  }
  return links;
}

test('every relative link in the markdown resolves to a file in the repository', () => {
  assert.ok(markdown.includes('docs/contract.md') && markdown.includes('docs/toolchain.md'));
  const broken = [];
  for (const file of markdown) {
    for (const link of relativeLinks(fs.readFileSync(path.join(root, file), 'utf8'))) {
      const resolved = path.resolve(root, path.dirname(file), link);
      if (!resolved.startsWith(root + path.sep) || !fs.existsSync(resolved)) broken.push(`${file}: ${link}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('no tracked file refers to the design folder outside the repository', () => {
  const outside = ['shared', 'design'].join('/');
  const referring = tracked.filter((file) => {
    const full = path.join(root, file);
    return fs.statSync(full).size < 4e6 && fs.readFileSync(full, 'latin1').includes(outside);
  });
  assert.deepEqual(referring, []);
});
