// Chapter 5, "Memory": the KV memory of reserve:B against paged:B as blocks filling and freeing,
// played back from the memory_timeline and queue_timeline of the Memory section's run (memplan.js
// asks the simulator for them). Contract as the queue chapter's: mount(root, ctx) -> {show(plan),
// clear(), destroy()}, with plan = runMemoryPlan()'s output.
//
// Drawn state for tests: each panel carries data-held, data-used (blocks filled with KV, rounded
// up), data-preemptions (so far) and data-waiting.

import '../../playback/playback.css';
import './memory.css';
import { h, replace } from '../../dom.js';
import { policyLabel, policyStyle } from '../../policies.js';
import { createPlayback, speedFor } from '../../playback/controls.js';
import { eventTimes } from '../../playback/events.js';
import { memoryAt, prepareMemory } from '../../playback/memory.js';
import { prepareQueue, stateAt } from '../../playback/seats.js';
import { drawMemoryPanel, layoutMemory } from './render.js';
import { TITLE, countsText, describeStep, introParagraphs } from './words.js';

export const name = 'memory';
export const title = TITLE;

// A preemption stays flashed this share of the run after it happens, so that playback shows it.
const FLASH_SHARE = 0.01;

function makePanel(policy, result) {
  const canvas = h('canvas', { role: 'img', 'aria-label': `${policyLabel(policy)}: KV blocks now, and held over time` });
  const counts = h('span', { class: 'memory-counts' });
  const element = h('figure', { class: 'memory-panel', dataset: { policy } },
    h('figcaption', null, h('strong', null, policyLabel(policy)), ' ', counts), canvas);
  const queue = prepareQueue(result.queue_timeline);
  return {
    policy, canvas, counts, element, queue,
    memory: prepareMemory(result.memory_timeline),
    people: new Uint8Array(queue.count),
    color: policyStyle(policy).color,
    layout: null,
    state: null,
  };
}

function setData(el, key, value) {
  if (el.dataset[key] !== value) el.dataset[key] = value;
}

export function mount(root, ctx) {
  const chapter = h('div', { class: 'chapter chapter-memory' });
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

  function show(plan) {
    clear();
    const results = plan.results || {};
    const shown = (plan.policies || []).filter((p) => /^(reserve|paged):/.test(p) && results[p] && results[p].memory_timeline && results[p].queue_timeline);
    if (shown.length === 0) {
      chapter.append(h('p', { class: 'chapter-note' }, 'This run carries no memory timeline: run the memory policies again to play them back.'));
      ctx.figureLanded?.();
      return;
    }
    panels = shown.map((p) => makePanel(p, results[p]));
    const prepared = Object.fromEntries(panels.map((panel) => [panel.policy, panel]));
    const endMs = Math.max(...panels.map((panel) => panel.queue.endMs));
    const events = eventTimes(shown.map((p) => results[p].queue_timeline), panels.map((panel) => panel.memory.preempt_t_ms));
    const dpr = window.devicePixelRatio || 1;

    const size = () => {
      for (const panel of panels) {
        const width = Math.max(200, Math.floor(panel.canvas.parentElement.clientWidth));
        panel.layout = layoutMemory(width, panel.memory);
        panel.canvas.width = Math.round(width * dpr);
        panel.canvas.height = Math.round(panel.layout.height * dpr);
        panel.canvas.style.width = `${width}px`;
        panel.canvas.style.height = `${panel.layout.height}px`;
      }
    };
    const drawAll = (t) => {
      for (const panel of panels) {
        const state = memoryAt(panel.memory, t);
        const seats = stateAt(panel.queue, t, panel.people);
        panel.state = state;
        const flash = Boolean(state.last_preemption && t - state.last_preemption.t_ms <= FLASH_SHARE * endMs);
        drawMemoryPanel(panel.canvas, panel.layout, panel.memory, state, { t, endMs, color: panel.color, flash, dpr });
        const el = panel.element;
        setData(el, 'held', String(state.held));
        setData(el, 'used', String(Math.ceil(state.used_blocks)));
        setData(el, 'preemptions', String(state.preemptions));
        setData(el, 'waiting', String(seats.waiting));
        setData(el, 'flash', String(flash));
        const text = `${countsText(state, panel.memory)}; ${seats.waiting} waiting`;
        if (panel.counts.textContent !== text) replace(panel.counts, text);
      }
    };
    const describe = (t) => describeStep(t, shown, Object.fromEntries(panels.map((panel) => [panel.policy, panel.state || memoryAt(panel.memory, t)])), prepared);

    const words = h('div', { class: 'chapter-words' }, introParagraphs(plan, shown, prepared).map((text) => h('p', null, text)));
    const legend = h('p', { class: 'memory-legend' },
      h('span', null, h('span', { class: 'swatch swatch-kv' }), ' block filled with KV'),
      h('span', null, h('span', { class: 'swatch swatch-held' }), ' held, still empty'),
      h('span', null, h('span', { class: 'swatch swatch-free' }), ' free'),
      h('span', null, h('span', { class: 'swatch swatch-preempt' }), ' a preemption'));
    const figure = h('div', { class: 'memory-panels', tabindex: '0', role: 'group', 'aria-label': 'KV memory under each policy, on one clock (space plays or pauses, arrows step)' },
      panels.map((panel) => panel.element));
    chapter.append(words, legend, figure);
    size();
    playback = createPlayback(chapter, {
      what: 'the memory', endMs, events, speed: speedFor(endMs), onDraw: drawAll, describe, ctx,
    });
    figure.after(playback.element, playback.caption);
    chapter.dataset.ready = 'true';
    chapter.dataset.events = String(events.length);
    resizer = new ResizeObserver(() => {
      size();
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
