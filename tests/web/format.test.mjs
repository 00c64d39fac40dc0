// How the page writes a relative error (shared/format.js): to one decimal with its sign, as the CLI
// prints it, whatever the size of the error.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signedPct } from '../../web/src/shared/format.js';

test('a relative error is shown in percent to one decimal, with its sign', () => {
  assert.equal(signedPct(0.014), '+1.4%');
  assert.equal(signedPct(0.02), '+2.0%');
  assert.equal(signedPct(-0.086), '−8.6%');
  assert.equal(signedPct(0.423), '+42.3%');
  assert.equal(signedPct(-1.5), '−150.0%');
});

test('an error that rounds to zero has no sign, not "+0.0092%"', () => {
  assert.equal(signedPct(0.000092), '0.0%');
  assert.equal(signedPct(-0.0004), '0.0%');
  assert.equal(signedPct(0), '0.0%');
  assert.equal(signedPct(0.0005), '+0.1%');
});

test('a missing error is a dash', () => {
  for (const value of [NaN, Infinity, undefined, null]) assert.equal(signedPct(value), '–', String(value));
});
