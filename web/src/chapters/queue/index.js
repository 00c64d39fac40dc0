// Chapter 4, "The queue": the lab's four policies play the whole queue back on one clock, from the
// queue_timeline each policy's result carries (the lab asks the simulator for it). Contract with
// the walkthrough: mount(root, ctx) -> {show(result), clear(), destroy()}; ctx = {reducedMotion,
// announce(text), figureLanded()}.
//
// For tests and embedders the drawn state is readable: each panel's element carries data-occupied
// (the seats held, comma-separated slot numbers from 0), data-idle (of which padding), data-waiting,
// data-done and data-ttfts (TTFTs in its histogram); the chapter's root carries data-t-ms and
// data-playing (playback/controls.js).

import '../../playback/playback.css';
import './queue.css';
import { h, replace } from '../../dom.js';
import { policyStyle } from '../../policies.js';
import { createPlayback, speedFor } from '../../playback/controls.js';
import { eventTimes } from '../../playback/events.js';
import { prepareQueue, stateAt } from '../../playback/seats.js';
import { drawPanel, finalHistogramPeak, layoutPanel } from './render.js';
import { TITLE, changesAt, countsText, describeStep, introParagraphs, panelLabel } from './words.js';

export const name = 'queue';

const LEGEND = [
  ['waiting', 'waiting'], ['prefill', 'prefill (the prompt)'], ['prompt', 'prompt in the KV cache'],
  ['answer', 'answer tokens (the policy’s colour)'], ['idle', 'seat held, answer done: padding'], ['done', 'done'],
];
export const title = TITLE;

function makePanel(policy, q) {
  const canvas = h('canvas', { role: 'img', 'aria-label': `${panelLabel(policy)}: the crowd, the seats and the TTFT histogram` });
  const counts = h('span', { class: 'queue-counts' });
  const element = h('figure', { class: 'queue-panel', dataset: { policy } },
    h('figcaption', null, h('strong', null, panelLabel(policy)), ' ', counts), canvas);
  return {
    policy, q, canvas, counts, element,
    color: policyStyle(policy).color,
    peak: finalHistogramPeak(q),
    scratch: new Float64Array(q.count),
    people: new Uint8Array(q.count),
    layout: null,
    state: null,
  };
}

function sizePanel(panel, dpr) {
  const width = Math.max(200, Math.floor(panel.canvas.parentElement.clientWidth));
  panel.layout = { ...layoutPanel(width, panel.q), color: panel.color };
  panel.canvas.width = Math.round(width * dpr);
  panel.canvas.height = Math.round(panel.layout.height * dpr);
  panel.canvas.style.width = `${width}px`;
  panel.canvas.style.height = `${panel.layout.height}px`;
}

function setData(el, key, value) {
  if (el.dataset[key] !== value) el.dataset[key] = value;
}

function drawPanelAt(panel, t, dpr) {
  const state = stateAt(panel.q, t, panel.people);
  panel.state = state;
  const ttfts = drawPanel(panel.canvas, panel.layout, panel.q, state, { scratch: panel.scratch, peak: panel.peak, dpr });
  const occupied = [];
  const idle = [];
  state.seats.forEach((seat, slot) => {
    if (!seat) return;
    occupied.push(slot);
    if (seat.phase === 'idle') idle.push(slot);
  });
  const el = panel.element;
  setData(el, 'occupied', occupied.join(','));
  setData(el, 'idle', idle.join(','));
  setData(el, 'waiting', String(state.waiting));
  setData(el, 'done', String(state.done));
  setData(el, 'ttfts', String(ttfts));
  const text = countsText(state);
  if (panel.counts.textContent !== text) replace(panel.counts, text);
}

export function mount(root, ctx) {
  const chapter = h('div', { class: 'chapter chapter-queue' });
  root.append(chapter);
  let playback = null;
  let panels = [];
  let resizer = null;

  function clear() {
    if (playback) playback.destroy();
    if (resizer) resizer.disconnect();
    playback = null;
    resizer = null;
    panels = [];
    chapter.replaceChildren();
    delete chapter.dataset.ready;
  }

  function show(result) {
    clear();
    const order = (result.policy_order || Object.keys(result.policies)).filter((p) => result.policies[p] && result.policies[p].queue_timeline);
    if (order.length === 0) {
      chapter.append(h('p', { class: 'chapter-note' }, 'This result carries no queue timeline (it was made without the simulator option queue_timeline): run the lab again to play the queue back.'));
      ctx.figureLanded?.();
      return;
    }
    const prepared = Object.fromEntries(order.map((p) => [p, prepareQueue(result.policies[p].queue_timeline)]));
    panels = order.map((p) => makePanel(p, prepared[p]));
    const endMs = Math.max(...order.map((p) => prepared[p].endMs));
    const events = eventTimes(order.map((p) => result.policies[p].queue_timeline));
    // The batched policies set the pace: the fastest of them plays in about 15 s.
    const batched = order.filter((p) => !p.startsWith('serial-'));
    const paceMs = Math.min(...(batched.length ? batched : order).map((p) => prepared[p].endMs));
    const dpr = window.devicePixelRatio || 1;

    const words = h('div', { class: 'chapter-words' }, introParagraphs(result, order, prepared).map((text) => h('p', null, text)));
    const legend = h('p', { class: 'queue-legend' }, LEGEND.map(([kind, text]) => h('span', null, h('span', { class: `swatch swatch-${kind}` }), ` ${text}`)));
    const figure = h('div', { class: 'queue-panels', tabindex: '0', role: 'group', 'aria-label': 'The queue under each policy, on one clock (space plays or pauses, arrows step)' },
      panels.map((panel) => panel.element));

    const drawAll = (t) => {
      for (const panel of panels) drawPanelAt(panel, t, dpr);
    };
    const describe = (t, reason) => {
      const states = Object.fromEntries(panels.map((panel) => [panel.policy, panel.state || stateAt(panel.q, t)]));
      const changes = reason === 'step' ? panels.map((panel) => changesAt(panel.policy, panel.q, t)).filter(Boolean) : [];
      return describeStep(t, order, states, changes);
    };
    chapter.append(words, legend, figure);
    for (const panel of panels) sizePanel(panel, dpr);
    playback = createPlayback(chapter, {
      what: 'the queue', endMs, events, speed: speedFor(paceMs), onDraw: drawAll, describe, ctx,
    });
    figure.after(playback.element, playback.caption);
    chapter.dataset.ready = 'true';
    chapter.dataset.events = String(events.length);
    resizer = new ResizeObserver(() => {
      for (const panel of panels) sizePanel(panel, dpr);
      playback.redraw();
    });
    resizer.observe(figure);
    ctx.figureLanded?.();
  }

  return {
    show,
    clear,
    destroy() {
      clear();
      chapter.remove();
    },
  };
}
