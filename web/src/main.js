// kvlab's page: the walkthrough first (walkthrough/), then the lab bench with every setting and panel
// (panels/bench.js). One lab run feeds both through the run store (runs/store.js): its parts fill the
// chapters as they are measured. Which view shows comes from the URL (walkthrough/page-view.js): the
// full page, the compact view (embed.html), or one chapter alone (#chapter=NAME).

import 'uplot/dist/uPlot.min.css';
import './style.css';

import { $, replace } from './shared/dom.js';
import { setupBench } from './panels/bench.js';
import { CHAPTER_NAMES, setupWalkthrough } from './walkthrough/index.js';
import { isCompactView, splitHash, viewHash } from './walkthrough/page-view.js';
import { postHeightToParent } from './walkthrough/embed-height.js';
import { hardwareModel } from './runs/hardware-run.js';
import { runStore } from './runs/store.js';
import { publishResults } from './runs/publish.js';
import { DEFAULTS } from './config.js';
import { decodeShare } from './runs/share.js';
import { framed, standalone } from './runs/worker-client.js';
import { isolateWithServiceWorker } from './isolation/register.js';

// First, where the host sends no COOP/COEP headers: the service worker that adds them (the page reloads
// once when it is active, and then starts nothing here).
const reloading = isolateWithServiceWorker({ standalone, framed });

const compact = isCompactView();
const view = splitHash(location.hash, CHAPTER_NAMES);
const chapter = view.chapter; // fixed for the page's life: a chapter view is its own page
const embed = compact || Boolean(chapter); // the compact view and a chapter alone are embeds
if (compact) document.documentElement.classList.add('embed');
if (chapter) {
  document.documentElement.classList.add('chapter-view');
  document.documentElement.dataset.chapter = chapter;
  if (view.compact) document.documentElement.classList.add('compact-chapter');
}

let bench = null;
// What the runs produce, for the chapters and the panels; shared: the result a link carried (runs/share.js).
const store = runStore({ settings: DEFAULTS, shared: null });
const hardware = hardwareModel(store); // the queue and memory chapters' hardware switch
const walkthrough = setupWalkthrough({
  root: $('#walkthrough'),
  only: chapter,
  onRun: () => bench.start(),
  onCancel: () => bench.cancel(),
  store,
  hardware,
});
bench = setupBench({
  page: $('#lab'),
  embed,
  viewKeys: () => viewHash(view),
  store,
  memoryAfterLab: !chapter || chapter === 'memory',
  hardware,
});

publishResults(store, { embed });

// The footer names the module the measurements run on, once it is loaded.
store.subscribe((state, changes) => {
  if (changes.module)
    replace($('#version'), `${state.module.version}, ${state.module.instruction_set || 'WebAssembly'}`);
});

$('#to-bench').addEventListener('click', () => {
  $('#bench-title').scrollIntoView({ block: 'start' });
  $('#bench').focus({ preventScroll: true });
});

// A result's link: its record is read, and its settings taken, before anything runs. A bad link says
// why, and the page goes on with the link's other keys.
let sharedProblem = null;
async function readShared(token) {
  try {
    const record = await decodeShare(token);
    store.set({ shared: record });
  } catch (error) {
    view.sharedToken = null;
    sharedProblem = error.message;
  }
}

// Reads the link's settings; a link asking for a chapter that does not exist says so.
function applyHash() {
  const parts = splitHash(location.hash, CHAPTER_NAMES);
  const { shared } = store.get();
  const settingsHash =
    shared && parts.sharedToken !== null
      ? [shared.settings, /(^|&)autorun(&|$)/.test(parts.settingsHash) && 'autorun'].filter(Boolean).join('&')
      : parts.settingsHash;
  const applied = bench.applyHash(settingsHash);
  walkthrough.setMessage([parts.chapterProblem, parts.heightProblem, sharedProblem].filter(Boolean).join(' '));
  return applied;
}

window.addEventListener('hashchange', () => {
  const { autorun, bad } = applyHash();
  if (autorun && !bad && !bench.running) bench.start();
  else if (bad) bench.say('Some link settings were replaced by defaults; see the message above.');
});

function begin() {
  const initial = applyHash();
  if (initial.autorun && !initial.bad) bench.start(); // a link with bad settings: the message first
}

postHeightToParent({ chapter, compact: view.compact, heightPx: view.heightPx, store, walkthrough: $('#walkthrough') });
reloading.then((reload) => {
  if (reload) return;
  bench.startLoading();
  if (view.sharedToken === null) begin();
  else readShared(view.sharedToken).then(begin);
});
