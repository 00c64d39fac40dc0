// What the page says about threads when a lab's check found them no faster than one (web/src/threads.js,
// docs/threads.md "When threads do not pay"), and how many thread workers it starts for the threaded
// module. Node only: the functions take the lab worker's and the result's facts as given.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { threadWorkersFor, threadsEnvironment, threadsWords } from '../../web/src/threads.js';

const TWO_CORES = { max: 2, offered: 2, cross_origin_isolated: true, threaded_module_error: null };
const REASON =
  "2 threads took 1.30x one thread's time (4.810 against 3.700 ms for a one-row step), so this run used one.";

test('the thread workers: one fewer than the cores a run may use, at least one', () => {
  assert.equal(threadWorkersFor(2, 8), 1);
  assert.equal(threadWorkersFor(16, 8), 7);
  assert.equal(threadWorkersFor(1, 8), 1);
  assert.equal(threadWorkersFor(undefined, 8), 1);
});

test('a lab that fell back to one thread says why, in its environment and the panel', () => {
  const result = { steps: { model: { thread_check: { asked: 2, used: 1, reason: REASON } } } };
  const environment = threadsEnvironment(result, TWO_CORES, {});
  assert.deepEqual(environment, { threads: 1, threads_note: REASON });
  assert.equal(
    threadsWords(TWO_CORES, {}, environment),
    `2 (the threaded module, up to 2; this device offers 2 cores); the last lab ran on 1: ${REASON}`
  );
});

test('a lab that kept its threads has no note, and the panel says the count alone', () => {
  const result = { steps: { model: { threads: 2, thread_check: { asked: 2, used: 2, reason: 'faster' } } } };
  const environment = threadsEnvironment(result, TWO_CORES, {});
  assert.deepEqual(environment, { threads: 2, threads_note: null });
  assert.equal(
    threadsWords(TWO_CORES, {}, environment),
    '2 (the threaded module, up to 2; this device offers 2 cores)'
  );
});
