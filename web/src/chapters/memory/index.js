// Chapter 5, "Memory": the KV memory of reserve:B against paged:B as blocks filling and freeing,
// played back from the memory_timeline and queue_timeline of the Memory section's run (memplan.js
// asks the simulator for them). Contract as the queue chapter's: mount(root, ctx) -> {show(plan),
// clear(), destroy()}, with plan = runMemoryPlan()'s output.
//
// Drawn state for tests: each panel carries data-held, data-used (blocks filled with KV, rounded
// up), data-preemptions (so far), data-flash (a preemption just happened) and data-waiting.

import './memory.css';
import { replace } from '../../shared/dom.js';
import { POLICY_ROLES, policyIs, policyLabel } from '../../shared/policies.js';
import { speedFor } from '../../playback/controls.js';
import { eventTimes } from '../../playback/events.js';
import { memoryAt, prepareMemory } from '../../playback/memory.js';
import { prepareQueue, stateAt } from '../../playback/seats.js';
import { legendElement, mountPlayed, panelElement, setData, sizeCanvas } from '../played.js';
import { drawMemoryPanel, layoutMemory } from './render.js';
import { TITLE, countsText, describeStep, introParagraphs } from './words.js';
import { modeledContext, mountWithHardware } from '../../panels/hardware/chapter.js';
import { memoryView, modeledView } from '../../panels/hardware/render.js';

export const name = 'memory';
export const title = TITLE;

// A preemption stays flashed this share of the run after it happens, so that playback shows it.
const FLASH_SHARE = 0.01;

// One colour for KV in every panel (a policy's own colour may be the preemption red).
const KV_COLOR = '#1d5fa8';

const LEGEND = [
  ['swatch-kv', 'block filled with KV'],
  ['swatch-held', 'held, still empty'],
  ['swatch-free', 'free'],
  ['swatch-preempt', 'a preemption'],
];

function makePanel(policy, result) {
  const queue = prepareQueue(result.queue_timeline);
  return {
    policy,
    queue,
    ...panelElement(policy, policyLabel(policy), `${policyLabel(policy)}: KV blocks now, and held over time`),
    memory: prepareMemory(result.memory_timeline),
    people: new Uint8Array(queue.count),
    color: KV_COLOR,
    layout: null,
    state: null,
  };
}

function drawPanelAt(panel, t, endMs, dpr, textWaits) {
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
  if (!textWaits && panel.counts.textContent !== text) replace(panel.counts, text);
}

function build(plan, dpr) {
  const results = plan.results || {};
  const shown = (plan.policies || []).filter(
    (p) =>
      (policyIs(p, POLICY_ROLES.reserve) || policyIs(p, POLICY_ROLES.paged)) &&
      results[p] &&
      results[p].memory_timeline &&
      results[p].queue_timeline
  );
  if (shown.length === 0)
    return { note: 'This run carries no memory timeline: run the memory policies again to play them back.' };
  const panels = shown.map((p) => makePanel(p, results[p]));
  const byPolicy = Object.fromEntries(panels.map((panel) => [panel.policy, panel]));
  const endMs = Math.max(...panels.map((panel) => panel.queue.endMs));
  return {
    words: introParagraphs(plan, shown, byPolicy),
    legend: legendElement(LEGEND),
    panels: panels.map((panel) => panel.element),
    figureLabel: 'KV memory under each policy, on one clock',
    what: 'the memory',
    endMs,
    events: eventTimes(
      shown.map((p) => results[p].queue_timeline),
      panels.map((panel) => panel.memory.preempt_t_ms)
    ),
    speed: speedFor(endMs),
    resize() {
      for (const panel of panels)
        panel.layout = sizeCanvas(panel.canvas, dpr, (width) => layoutMemory(width, panel.memory));
    },
    onDraw(t, textWaits) {
      for (const panel of panels) drawPanelAt(panel, t, endMs, dpr, textWaits);
    },
    describe(t) {
      return describeStep(
        t,
        shown,
        Object.fromEntries(panels.map((panel) => [panel.policy, panel.state || memoryAt(panel.memory, t)])),
        byPolicy
      );
    },
  };
}

// With the hardware switch: this device's memory run played back, or a GPU's, modeled at its real KV
// budget, in tables and played back the same way (hardware/).
export function mount(root, ctx) {
  const played = (element, context) => mountPlayed(element, context, { className: 'chapter-memory', build });
  return mountWithHardware(root, ctx, {
    part: name,
    measured: (element) => played(element, ctx),
    modeled: (element) =>
      modeledView(element, (r) => memoryView(r, 'memory-hw'), {
        mount: (box) => played(box, modeledContext(ctx)),
        data: (r) => r.memory,
      }),
  });
}
