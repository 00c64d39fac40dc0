// Chapter 4, "The queue": the lab's four policies play the whole queue back on one clock, from the
// queue_timeline each policy's result carries (the lab asks the simulator for it). Contract with
// the walkthrough: mount(root, ctx) -> {show(result), clear(), destroy()}; ctx = {reducedMotion,
// announce(text), announceFigure(text), figureLanded(), hardware} (walkthrough/index.js); the data is the
// lab's result object.
//
// For tests and embedders the drawn state is readable: each panel's element carries data-occupied
// (the seats held, comma-separated slot numbers from 0), data-idle (of which padding), data-waiting,
// data-done and data-ttfts (TTFTs in its histogram); the chapter's root carries data-t-ms and
// data-playing (playback/controls.js).

import './queue.css';
import { replace } from '../../shared/dom.js';
import { POLICY_ROLES, policyIs, policyStyle } from '../../shared/policies.js';
import { speedFor } from '../../playback/controls.js';
import { eventTimes } from '../../playback/events.js';
import { prepareQueue, stateAt } from '../../playback/seats.js';
import { legendElement, mountPlayed, panelElement, setData, sizeCanvas } from '../played.js';
import { drawPanel, finalHistogramPeak, layoutPanel, sharedTtftSpanMs } from './render.js';
import { TITLE, changesAt, countsText, describeStep, introParagraphs, panelLabel } from './words.js';
import { mountWithHardware } from '../../panels/hardware/chapter.js';
import { modeledView, queueView } from '../../panels/hardware/render.js';

export const name = 'queue';
export const title = TITLE;

const LEGEND = [
  ['swatch-waiting', 'waiting'],
  ['swatch-prefill', 'prefill (the prompt)'],
  ['swatch-prompt', 'prompt in the KV cache'],
  ['swatch-recomputed', 'prompt, computed again each step (no cache)'],
  ['swatch-answer', 'answer tokens (the policy’s colour)'],
  ['swatch-idle', 'seat held, answer done: padding'],
  ['swatch-done', 'done'],
];

function makePanel(policy, q, spanMs) {
  return {
    policy,
    q,
    ...panelElement(policy, panelLabel(policy), `${panelLabel(policy)}: the crowd, the seats and the TTFT histogram`),
    color: policyStyle(policy).color,
    spanMs,
    peak: finalHistogramPeak(q, spanMs),
    scratch: new Float64Array(q.count),
    people: new Uint8Array(q.count),
    layout: null,
    state: null,
  };
}

function drawPanelAt(panel, t, dpr, textWaits) {
  const state = stateAt(panel.q, t, panel.people);
  panel.state = state;
  const ttfts = drawPanel(panel.canvas, panel.layout, panel.q, state, {
    scratch: panel.scratch,
    peak: panel.peak,
    spanMs: panel.spanMs,
    dpr,
  });
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
  if (!textWaits && panel.counts.textContent !== text) replace(panel.counts, text);
}

function build(result, dpr) {
  const policies = result.policies || {};
  const order = (result.policy_order || Object.keys(policies)).filter((p) => policies[p] && policies[p].queue_timeline);
  if (order.length === 0) {
    return {
      note: 'This result carries no queue timeline (it was made without the simulator option queue_timeline): run the lab again to play the queue back.',
    };
  }
  const prepared = Object.fromEntries(order.map((p) => [p, prepareQueue(policies[p].queue_timeline)]));
  const spanMs = sharedTtftSpanMs(Object.values(prepared));
  const panels = order.map((p) => makePanel(p, prepared[p], spanMs));
  // The batched policies set the pace: the fastest of them plays in about 15 s.
  const batched = order.filter((p) => !policyIs(p, POLICY_ROLES.oneAtATime));
  const paceMs = Math.min(...(batched.length ? batched : order).map((p) => prepared[p].endMs));
  return {
    words: introParagraphs(result, order, prepared),
    legend: legendElement(LEGEND),
    panels: panels.map((panel) => panel.element),
    figureLabel: 'The queue under each policy, on one clock',
    what: 'the queue',
    endMs: Math.max(...order.map((p) => prepared[p].endMs)),
    events: eventTimes(order.map((p) => policies[p].queue_timeline)),
    speed: speedFor(paceMs),
    resize() {
      for (const panel of panels) {
        panel.layout = {
          ...sizeCanvas(panel.canvas, dpr, (width) => layoutPanel(width, panel.q)),
          color: panel.color,
          cachesKv: !policyIs(panel.policy, POLICY_ROLES.noCache),
        };
      }
    },
    onDraw(t, textWaits) {
      for (const panel of panels) drawPanelAt(panel, t, dpr, textWaits);
    },
    describe(t, reason) {
      const states = Object.fromEntries(panels.map((panel) => [panel.policy, panel.state || stateAt(panel.q, t)]));
      const changes =
        reason === 'step' ? panels.map((panel) => changesAt(panel.policy, panel.q, t)).filter(Boolean) : [];
      return describeStep(t, order, states, changes);
    },
  };
}

// With the hardware switch: this device's queue played back, or a GPU's modeled tables (hardware/).
export function mount(root, ctx) {
  return mountWithHardware(root, ctx, {
    part: name,
    measured: (element) => mountPlayed(element, ctx, { className: 'chapter-queue', build }),
    modeled: (element) => modeledView(element, (r) => queueView(r, 'queue-hw')),
  });
}
