// The lab's run, headless: the worker that measures and simulates (runs/worker-client.js), or the sibling
// embed that measures for this page (runs/post-peers.js), turned into one state in the run store
// (runs/store.js): store.lab's state, phase, progress and error as the run goes, its parts as they are
// measured (Part A, then the step table), then the whole result (store.labResult) and its link
// (store.shareUrl), which runs/publish.js hands on. The views (the settings panel, the walkthrough, the
// page's data-state) draw store.lab; nothing here touches them.

import { fieldOfModuleError, isPublishedQueue, modelToLoad, policyNames, toRunOptions } from '../config.js';
import { Lab, standalone, threadsSituation } from './worker-client.js';
import { postPeers } from './post-peers.js';
import { SHARE_KEY, encodeShare, shareRecord } from './share.js';
import { BLOCKED_BY, PHASES } from './lab-words.js';
import { duration } from '../shared/format.js';
import { FILE_MODEL } from '../models/choices.js';
import { gpuEnvironment } from '../webgpu/environment.js';
import { runWords } from '../webgpu/words.js';
import { threadsEnvironment } from '../threads.js';

// Whether the lab's Run buttons take a press, and its Cancel buttons (store.lab).
export const labRunEnabled = (lab) => lab.state !== 'running' && !lab.blocked;
export const labCancelEnabled = (lab) => lab.state === 'running';

// store: the run store; runs: the page's one-at-a-time rule (the lab registers in it); env() -> the
// environment; embed: the compact view; accepted(settings): a run of these settings starts (the bench
// writes its hash); linkTo(hashText) -> the whole page's address with that hash (a result's link);
// onReady(info): the module is loaded; stopYielding(): stops the runs that give way to the lab.
export function labRun({ store, runs, env, embed, accepted, linkTo, onReady, stopYielding }) {
  let pending = null; // { settings, options, measured_by } of the run in progress
  const peers = embed ? postPeers() : null; // the other embeds of the post this page is in
  let following = null; // the id of the sibling embed whose run this page shows, while it runs

  const update = (change) => store.set({ lab: { ...store.get().lab, ...change } });
  // A change of the run's state: the other runners' buttons follow (runs.sync).
  const enter = (state, change = {}) => {
    update({ state, ...change });
    runs.sync();
  };
  const say = (phase) => update({ phase });

  function fail(error) {
    const field = error.kind === 'input' ? fieldOfModuleError(error.path) : null;
    const { kind, message, detail = '', restarted = false } = error;
    if (field) {
      enter('ready', {
        phase: 'Not run: fix the highlighted setting.',
        progress: 0,
        error: { kind, message, detail, field },
      });
      return;
    }
    enter('error', {
      phase: 'Stopped.',
      progress: 0,
      // kept: the results shown are the last finished run's; rerun: Try again runs the lab again.
      error: {
        kind,
        message,
        detail,
        restarted,
        kept: Boolean(store.get().labResult) && (kind === 'crash' || kind === 'memory'),
        rerun: Boolean(error.wasRunning),
      },
    });
  }

  // The chapters and panels get the result at once (the Memory section starts on it in the same
  // tick, before anything else can take the processor); it goes out of the page (runs/publish.js) with
  // its link (share_url), which takes a compression.
  async function finish(result, elapsedMs) {
    const { settings, options } = pending;
    const order = policyNames(settings).filter((name) => result.policies[name]);
    const full = {
      ...result,
      policy_order: order,
      settings,
      options,
      elapsed_ms: elapsedMs,
      version: lab.info && lab.info.version,
      environment: {
        ...env(),
        ...gpuEnvironment(result),
        ...threadsEnvironment(result, lab.info && lab.info.threads, threadsSituation()),
      },
      page: { standalone, embed },
      // Which embed of the post measured (null when this page is not embedded): one id on every embed.
      measured_by: pending.measured_by,
      share_url: null,
    };
    const { parts, run } = store.get().lab;
    store.set({
      lab: {
        ...store.get().lab,
        state: 'done',
        phase: [`Done in ${duration(elapsedMs)}.`, runWords(result)].filter(Boolean).join(' '),
        progress: 1,
        // The result's steps over the part's: cells that contradicted the rest were timed again since.
        parts: { ...parts, answer: parts.answer || full.answer, steps: full.steps || parts.steps, result: full },
      },
      labResult: full,
    });
    runs.sync();
    full.share_url = await shareUrl(full);
    if (store.get().lab.run !== run) return; // a new run started meanwhile
    store.set({ shareUrl: full.share_url }); // the result goes out from here (runs/publish.js)
  }

  // The result's link (runs/share.js), or null where the browser cannot compress or it is too long.
  async function shareUrl(full) {
    try {
      const token = await encodeShare(shareRecord(full));
      return token ? linkTo(`${SHARE_KEY}=${token}`) : null;
    } catch (error) {
      return null;
    }
  }

  // What a run reports, whether this page measures it or follows a sibling embed that does.
  const report = {
    progress(fraction, phase) {
      update({ progress: fraction, phase: `${PHASES[phase] || phase}…` });
    },
    part(name, value) {
      const { parts } = store.get().lab;
      update({ parts: { ...parts, [name]: name === 'first_answer' ? { ...value, provisional: true } : value } });
    },
    result: finish,
  };
  // This page measures: its siblings that follow get each event too.
  const share = (event) => peers && peers.send(event);

  const lab = new Lab({
    onState(state) {
      if (following) return; // the sibling's run is the one shown
      if (state === 'loading') {
        if (lab.running) enter('running');
        else enter('loading', { phase: 'Loading the WebAssembly module…' });
      } else if (state === 'ready') {
        if (store.get().lab.state === 'loading') enter('ready', { phase: 'Ready to measure this device: press Run.' });
      } else if (state === 'running') {
        enter('running');
      }
    },
    onReady,
    onProgress(fraction, phase) {
      share({ kind: 'progress', fraction, phase });
      report.progress(fraction, phase);
    },
    onPart(name, value) {
      share({ kind: 'part', name, value });
      report.part(name, value);
    },
    onResult(result, elapsedMs) {
      share({ kind: 'result', result, elapsed_ms: elapsedMs });
      report.result(result, elapsedMs);
    },
    onError(error) {
      if (error.wasRunning) share({ kind: 'error', error });
      fail(error);
    },
  });

  // A sibling embed's run, shown as this page's own as its events arrive.
  function onLeaderEvent(event) {
    if (event.kind === 'progress') report.progress(event.fraction, event.phase);
    else if (event.kind === 'part') report.part(event.name, event.value);
    else {
      following = null;
      peers.unfollow();
      if (event.kind === 'result') report.result(event.result, event.elapsed_ms);
      else if (event.kind === 'error') fail(event.error);
      else
        enter('cancelled', {
          progress: 0,
          phase:
            event.kind === 'gone'
              ? 'Stopped: the embed that was measuring for this page went away. Press Run to measure here.'
              : 'Cancelled in the embed that was measuring for this page. Press Run to start again.',
        });
    }
  }

  // Starts a run of `settings` (the form's, checked); false when another run blocks it (the phase says so).
  function start(settings) {
    const blocker = runs.blocking('lab');
    if (blocker) {
      say(BLOCKED_BY[blocker] || 'Not run: another run is using the processor; wait for it or cancel it.');
      return false;
    }
    stopYielding();
    accepted(settings);
    pending = {
      settings: { ...settings, published_queue: isPublishedQueue(settings) },
      options: toRunOptions(settings),
    };
    const { lab: last } = store.get();
    store.set({
      lab: { ...last, run: last.run + 1, state: 'running', phase: 'Starting…', progress: 0, error: null, parts: {} },
      memory: null,
    });
    // A model from the reader's disk: the files picked last (store.modelFiles, models/control.js).
    const model = modelToLoad(settings);
    const picked = settings.model === FILE_MODEL ? store.get().modelFiles : null;
    following = peers && peers.claim(JSON.stringify(pending.options));
    pending.measured_by = peers ? following || peers.id : null;
    if (following) {
      say('Measured by another embed of this page…');
      peers.follow(following, onLeaderEvent);
    } else {
      lab.run(pending.options, model && { ...model, ...picked });
    }
    runs.sync();
    return true;
  }

  function cancel() {
    if (following) {
      following = null;
      peers.unfollow();
    } else {
      if (!lab.running) return;
      share({ kind: 'cancel' });
      lab.cancel();
    }
    enter('cancelled', { progress: 0, phase: 'Cancelled: the work was stopped. Press Run to start again.' });
  }

  // Try again after an error: the error goes, and a fresh worker loads (the bench runs again if the
  // error stopped a run: error.rerun).
  function retry() {
    update({ error: null });
    lab.start();
  }

  const running = () => lab.running || following !== null;
  runs.add('lab', {
    running,
    sync() {
      const blocked = runs.busyFor('lab');
      if (blocked !== store.get().lab.blocked) update({ blocked });
    },
  });

  return {
    load: () => lab.start(),
    start,
    cancel,
    retry,
    say,
    get running() {
      return running();
    },
  };
}
