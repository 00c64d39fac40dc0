// The lab's run: the worker that measures and simulates (runs/worker-client.js), its progress line,
// its errors, and the finished result. The run goes into the run store (runs/store.js) as it lands: its
// progress in words, its parts as they are measured (Part A, then the step table), then the whole
// result, which runs/publish.js hands on to whoever reads the page from outside.

import { $, $$, replace } from '../../shared/dom.js';
import { fieldOfModuleError, isPublishedQueue, modelToLoad, policyNames, toRunOptions } from '../../config.js';
import { Lab, standalone, threadsSituation } from '../../runs/worker-client.js';
import { postPeers } from '../../runs/post-peers.js';
import { SHARE_KEY, encodeShare, shareRecord } from '../../runs/share.js';
import { showProgress } from '../../runs/job-panel.js';
import { sig } from '../../shared/format.js';
import { BLOCKED_BY, PHASES, hint } from '../results/words.js';
import { FILE_MODEL } from '../../models/choices.js';
import { gpuEnvironment } from '../../webgpu/environment.js';
import { runWords } from '../../webgpu/words.js';
import { threadsEnvironment } from '../../threads.js';

// root: the settings panel's element (its phase, progress and error box); page: the page's main element,
// whose data-state is the run's state; form, hash: the bench's form and hash state; runs: the page's
// one-at-a-time rule; store: the run store; env() -> the environment; embed: the compact view;
// onReady(info): the module is loaded; stopYielding(): stops the runs that give way to the lab.
export function labRun({ root, page, form, hash, runs, store, env, embed, onReady, stopYielding }) {
  const main = page;
  let pending = null; // { settings, options } of the run in progress
  const peers = embed ? postPeers() : null; // the other embeds of the post this page is in
  let following = null; // the id of the sibling embed whose run this page shows, while it runs

  const updateLab = (change) => store.update('lab', (lab) => ({ ...lab, ...change(lab) }));
  const setStatus = (status) => updateLab(() => ({ status }));
  const stopped = () => updateLab(() => ({ state: 'stopped' }));
  const setPhase = (text) => {
    replace($('#phase', root), text);
    setStatus(text);
  };
  const setProgress = (fraction) => showProgress($('#progress', root), $('#percent', root), fraction);

  // The lab's Run and Cancel buttons (the bench's and the walkthrough's).
  const syncButtons = () => {
    const running = main.dataset.state === 'running';
    for (const button of $$('[data-lab-run]')) button.disabled = running || runs.busyFor('lab');
    for (const button of $$('[data-lab-cancel]')) button.disabled = !running;
  };

  function setState(state) {
    main.dataset.state = state;
    syncButtons();
    runs.sync();
  }

  function showError(error) {
    const field = error.kind === 'input' ? fieldOfModuleError(error.path) : null;
    stopped();
    if (field) {
      form.errors.showField(field, error.detail);
      const box = $('#form-error', root);
      replace(box, `${error.message} ${error.detail}`);
      box.hidden = false;
      setState('ready');
      setPhase('Not run: fix the highlighted setting.');
      setProgress(0);
      $(`#${field}`, root).focus();
      return;
    }
    setState('error');
    setProgress(0);
    setPhase('Stopped.');
    const kept =
      store.get().labResult && (error.kind === 'crash' || error.kind === 'memory')
        ? 'The results below are from the last run that finished.'
        : '';
    replace($('#error-message', root), [error.message, hint(error, env()), kept].filter(Boolean).join(' '));
    replace($('#error-detail', root), error.detail || '');
    $('#error', root).hidden = false;
    $('#error', root).dataset.kind = error.kind;
    $('#error', root).scrollIntoView({ block: 'nearest' });
    $('#retry', root).dataset.rerun = error.wasRunning ? 'true' : 'false';
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
    setPhase([`Done in ${sig(elapsedMs / 1000, 3)} s.`, runWords(result)].filter(Boolean).join(' '));
    const { parts, run } = store.get().lab;
    store.set({
      lab: {
        ...store.get().lab,
        state: 'done',
        // The result's steps over the part's: cells that contradicted the rest were timed again since.
        parts: { ...parts, answer: parts.answer || full.answer, steps: full.steps || parts.steps, result: full },
      },
      labResult: full,
    });
    full.share_url = await shareUrl(full);
    if (store.get().lab.run !== run) return; // a new run started meanwhile
    store.set({ shareUrl: full.share_url }); // the result goes out from here (runs/publish.js)
  }

  // The result's link (runs/share.js), or null where the browser cannot compress or it is too long.
  async function shareUrl(full) {
    try {
      const token = await encodeShare(shareRecord(full));
      return token ? hash.wholePageUrl(`${SHARE_KEY}=${token}`) : null;
    } catch (error) {
      return null;
    }
  }

  // What a run reports, whether this page measures it or follows a sibling embed that does.
  const report = {
    progress(fraction, phase) {
      setProgress(fraction);
      replace($('#phase', root), `${PHASES[phase] || phase}…`);
      setStatus(`${PHASES[phase] || phase}… (${Math.floor(fraction * 100)}%)`);
    },
    part(name, value) {
      updateLab(({ parts }) => ({
        parts: { ...parts, [name]: name === 'first_answer' ? { ...value, provisional: true } : value },
      }));
    },
    result(result, elapsedMs) {
      setState('done');
      finish(result, elapsedMs);
    },
  };
  // This page measures: its siblings that follow get each event too.
  const share = (event) => peers && peers.send(event);

  const lab = new Lab({
    onState(state) {
      if (following) return; // the sibling's run is the one shown
      if (state === 'loading') {
        if (!lab.running) setPhase('Loading the WebAssembly module…');
        setState(lab.running ? 'running' : 'loading');
      } else if (state === 'ready') {
        if (main.dataset.state === 'loading') {
          setState('ready');
          setPhase('Ready to measure this device: press Run.');
        }
      } else if (state === 'running') {
        setState('running');
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
      showError(error);
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
      else if (event.kind === 'error') showError(event.error);
      else {
        stopped();
        setState('cancelled');
        setProgress(0);
        setPhase(
          event.kind === 'gone'
            ? 'Stopped: the embed that was measuring for this page went away. Press Run to measure here.'
            : 'Cancelled in the embed that was measuring for this page. Press Run to start again.'
        );
      }
    }
  }

  // Checks the form and starts a run; false when nothing started (the reason is on the phase line).
  function start() {
    const { settings, ok } = form.check();
    if (!ok) {
      const first = $('[aria-invalid="true"]', form.element);
      if (first) first.focus();
      setPhase('Not run: fix the highlighted settings.');
      return false;
    }
    const blocker = runs.blocking('lab');
    if (blocker) {
      setPhase(BLOCKED_BY[blocker] || 'Not run: another run is using the processor; wait for it or cancel it.');
      return false;
    }
    stopYielding();
    hash.write(settings);
    $('#error', root).hidden = true;
    pending = {
      settings: { ...settings, published_queue: isPublishedQueue(settings) },
      options: toRunOptions(settings),
    };
    setProgress(0);
    setPhase('Starting…');
    store.set({ lab: { ...store.get().lab, run: store.get().lab.run + 1, state: 'running', parts: {} }, memory: null });
    // A model from the reader's disk: the files picked last (store.modelFiles, models/control.js).
    const model = modelToLoad(settings);
    const picked = settings.model === FILE_MODEL ? store.get().modelFiles : null;
    following = peers && peers.claim(JSON.stringify(pending.options));
    pending.measured_by = peers ? following || peers.id : null;
    if (following) {
      setState('running');
      setPhase('Measured by another embed of this page…');
      peers.follow(following, onLeaderEvent);
    } else {
      lab.run(pending.options, model && { ...model, ...picked });
    }
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
    stopped();
    setState('cancelled');
    setProgress(0);
    setPhase('Cancelled: the work was stopped. Press Run to start again.');
  }

  function retry() {
    $('#error', root).hidden = true;
    const rerun = $('#retry', root).dataset.rerun === 'true';
    lab.start();
    if (rerun) start();
    else setPhase('Loading the WebAssembly module…');
  }

  return {
    lab,
    start,
    cancel,
    retry,
    setState,
    setPhase,
    syncButtons,
    get running() {
      return lab.running || following !== null;
    },
  };
}
