// A job's run, with no view: the SIMD vs scalar vs JavaScript comparison, the Memory section and
// "Simulated vs real" each run one job in a worker of their own (jobs.js), turned here into the store's
// jobs[name] ({state, phase, progress, error, blocked}) as it goes, and its finished result into
// store[name], which runs/publish.js hands on. Each panel draws both (panels/job-panel.js) and gives the
// run its words: how it names the worker's phases, its last line, the hint after an error.

import { JobRunner } from './jobs.js';
import { capitalized } from '../shared/format.js';

// A job's state before any run: the panel's own first phase line stands (phase null).
const JOB_IDLE = { state: 'ready', phase: null, progress: 0, error: null, blocked: false };

// name: the job's name (its store keys, its runner in runs); store: the run store; runs: the page's
// one-at-a-time rule; job: {type, workerName} of its JobRunner (jobs.js); yieldsTo: the runners that stop
// it when they start; state: its first state; describePhase(phase) -> the worker's phase in words (it is
// capitalized and gets "…"); finish(raw, elapsedMs, given) -> {result, phase}: the result kept and the
// last line, from what the worker sent and what run() was given; fieldOf(error) -> the setting a
// refusal names, or null; retryHint: what to do after any other error.
export function jobRun(
  name,
  {
    store,
    runs,
    job: { type, workerName },
    yieldsTo = [],
    state = JOB_IDLE.state,
    describePhase = (phase) => phase,
    finish,
    fieldOf = () => null,
    retryHint = '',
  }
) {
  let given = null; // what the run in progress was given
  const current = () => store.get().jobs[name];
  const update = (change) => store.set({ jobs: { ...store.get().jobs, [name]: { ...current(), ...change } } });
  store.set({ jobs: { ...store.get().jobs, [name]: { ...JOB_IDLE, state } } });

  const job = new JobRunner(
    type,
    {
      onState(next) {
        update({ state: next });
        runs.sync();
      },
      onProgress(fraction, phase) {
        update({ progress: fraction, phase: `${capitalized(describePhase(String(phase || '')))}…` });
      },
      onResult(raw, elapsedMs) {
        const { result, phase } = finish(raw, elapsedMs, given);
        store.set({
          jobs: { ...store.get().jobs, [name]: { ...current(), progress: 1, phase } },
          [name]: result,
        });
      },
      onError(error) {
        const field = error.kind === 'input' ? fieldOf(error) : null;
        if (field) {
          update({
            progress: 0,
            phase: 'Not run: fix the highlighted setting.',
            error: { field, detail: error.raw || error.message },
          });
          return;
        }
        const message = [error.message, retryHint].filter(Boolean).join(' ');
        update({ progress: 0, phase: 'Stopped.', error: { kind: error.kind, message, detail: error.detail || '' } });
      },
    },
    workerName && { workerName }
  );

  runs.add(name, {
    running: () => job.running,
    sync() {
      const blocked = runs.busyFor(name);
      if (blocked !== current().blocked) update({ blocked });
    },
    yieldsTo,
  });

  return {
    // Starts the job on `options`; given: what finish() gets back with the result.
    run(options, runGiven = options, phase = 'Starting…') {
      given = runGiven;
      update({ error: null, progress: 0, phase });
      job.run(options);
    },
    // Stops the job mid-computation, saying `phase`; false when there was none.
    cancel(phase) {
      if (!job.running) return false;
      job.cancel();
      update({ progress: 0, phase });
      return true;
    },
    say: (phase) => update({ phase }),
    enter: (next) => update({ state: next }),
    get running() {
      return job.running;
    },
    get blocked() {
      return runs.busyFor(name);
    },
  };
}
