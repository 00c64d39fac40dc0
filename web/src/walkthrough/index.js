// The walkthrough: the page's first screen. One Run button, then the chapters in the order of the
// argument, each a short explanation beside a live picture, each filled in as its measurement lands:
// the first run of Part A's two paths (tokens, cache; then cache again with the medians of all runs),
// the step table (rows), the simulated queue (queue), the Memory section's run (memory). Every chapter
// module (chapters/<name>/index.js) exports { name, title, mount(root, ctx) }, and mount returns
// { show(data), clear(), destroy() }; ctx = { reducedMotion, announce(text), announceFigure(text),
// figureLanded(), hardware }: announceFigure says what a landed figure shows after the chapter's
// number, which its place in the list decides; hardware is the queue and memory chapters' shared
// modeled GPU server (runs/hardware-run.js).
//
// When a chapter's figure lands, the run store's `figure` says which, {chapter, elapsed_ms} (since Run was
// pressed): runs/publish.js hands it on as a `kvlab:figure` event and to an embedding page.

import { $, h, replace } from '../shared/dom.js';
import { CHAPTERS, dataFor } from './chapters.js';
import { showComparisons } from './shared-result.js';
import { shareRecord } from '../runs/share.js';
import { labCancelEnabled, labRunEnabled } from '../runs/lab-run.js';
import { glossaryElement, termsLine } from './glossary.js';

export const CHAPTER_NAMES = CHAPTERS.map((c) => c.name);

const reducedMotionQuery = () => window.matchMedia('(prefers-reduced-motion: reduce)');

// root: the walkthrough's element; only: a chapter name to show alone, or null; onRun(): start the lab;
// store: the run store (runs/store.js), whose lab run and Memory result the chapters draw;
// hardware: runs/hardware-run.js's hardwareModel().
export function setupWalkthrough({ root, only, onRun, onCancel, store, hardware }) {
  const status = $('#story-status', root);
  const announcer = $('#story-announce', root);
  let startedAt = null;
  let run = 0; // the lab run the chapters draw (the store counts them)
  const landed = new Set();

  const announce = (text) => replace(announcer, text);

  // The glossary follows the chapters (a chapter alone keeps it too: its links lead there).
  const glossary = glossaryElement();
  $('#story-chapters', root).after(glossary);

  const mounted = CHAPTERS.filter((chapter) => !only || chapter.name === only).map((chapter) => {
    const number = CHAPTERS.indexOf(chapter) + 1;
    const body = h('div', { class: 'chapter-body' });
    const section = h(
      'section',
      {
        class: 'story-chapter',
        id: `chapter-${chapter.name}`,
        dataset: { chapter: chapter.name, state: 'waiting' },
        'aria-labelledby': `chapter-${chapter.name}-title`,
      },
      // A chapter alone is its page's main heading.
      h(
        only ? 'h1' : 'h2',
        { id: `chapter-${chapter.name}-title`, class: 'chapter-title' },
        h('span', { class: 'chapter-number' }, String(number)),
        ' ',
        chapter.title
      ),
      body,
      termsLine(chapter.name, glossary)
    );
    const comparison = h('div', { class: 'chapter-comparison', hidden: true });
    section.append(comparison);
    $('#story-chapters', root).append(section);
    const ctx = {
      get reducedMotion() {
        return reducedMotionQuery().matches;
      },
      announce,
      announceFigure: (text) => announce(`Chapter ${number}: ${text}`),
      figureLanded: () => figureLanded(chapter.name, section),
      hardware,
    };
    return { chapter, section, comparison, view: chapter.mount(body, ctx) };
  });

  function figureLanded(name, section) {
    section.dataset.state = 'landed';
    if (landed.has(name) || startedAt === null) return;
    landed.add(name);
    store.set({ figure: { chapter: name, elapsed_ms: performance.now() - startedAt } }); // runs/publish.js
  }

  // Shows every chapter whose data has arrived and that has not shown it yet.
  function showArrived(state) {
    const parts = { ...state.lab.parts, memory: state.memory };
    for (const entry of mounted) {
      const data = dataFor(entry.chapter.name, parts);
      if (data && entry.shown !== data) {
        entry.shown = data;
        entry.section.dataset.state = 'shown';
        entry.view.show(data);
      }
    }
  }

  const runButton = $('#story-run', root);
  const cancelButton = $('#story-cancel', root);
  runButton.addEventListener('click', () => onRun());
  cancelButton.addEventListener('click', () => onCancel());

  // A new run clears the chapters; each draws its part of the run as it lands.
  function started() {
    startedAt = performance.now();
    landed.clear();
    for (const entry of mounted) {
      entry.shown = null;
      entry.section.dataset.state = 'waiting';
      entry.view.clear();
    }
  }

  store.subscribe((state, changes) => {
    const { lab } = state;
    if (changes.lab) {
      if (lab.run !== run) {
        run = lab.run;
        started();
      }
      root.dataset.state = lab.state;
      const said = lab.state === 'running' ? `${lab.phase} (${Math.floor(lab.progress * 100)}%)` : lab.phase;
      if (said !== status.textContent) replace(status, said);
      runButton.disabled = !labRunEnabled(lab);
      cancelButton.disabled = !labCancelEnabled(lab);
    }
    if (changes.lab || 'memory' in changes) showArrived(state);
    if ('labResult' in changes || 'shared' in changes) {
      const mine = state.labResult ? shareRecord(state.labResult) : null;
      const places = mounted.map((entry) => ({ chapter: entry.chapter.name, element: entry.comparison }));
      showComparisons(places, mine, state.shared);
    }
    if ('labResult' in changes || 'shareUrl' in changes) {
      const link = $('#story-share-link', root);
      link.hidden = !(state.labResult && state.labResult.share_url);
      if (!link.hidden) link.href = state.labResult.share_url;
      $('#story-share-wait', root).hidden = !link.hidden;
    }
  });

  return {
    // A message about the link (an unknown chapter), or none.
    setMessage(text) {
      const box = $('#story-message', root);
      replace(box, text || '');
      box.hidden = !text;
    },
  };
}
