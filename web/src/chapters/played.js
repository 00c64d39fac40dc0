// What the played-back chapters (queue, memory) share: the chapter element, its figure of panels, the
// playback controls under it, resizing, and the walkthrough's contract mount(root, ctx) ->
// {show(data), clear(), destroy()}.

import '../playback/playback.css';
import './played.css';
import { h } from '../shared/dom.js';
import { createPlayback } from '../playback/controls.js';

export function setData(el, key, value) {
  if (el.dataset[key] !== value) el.dataset[key] = value;
}

// Sizes `canvas` to its parent's width at the device's pixel ratio; layoutFor(width) gives the layout,
// whose height it takes. Returns the layout.
export function sizeCanvas(canvas, dpr, layoutFor) {
  const width = Math.max(200, Math.floor(canvas.parentElement.clientWidth));
  const layout = layoutFor(width);
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(layout.height * dpr);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${layout.height}px`;
  return layout;
}

// A figure panel: its caption (the policy's name and a counts line) above its canvas.
export function panelElement(policy, label, canvasLabel) {
  const canvas = h('canvas', { role: 'img', 'aria-label': canvasLabel });
  const counts = h('span', { class: 'played-counts' });
  const element = h(
    'figure',
    { class: 'played-panel', dataset: { policy } },
    h('figcaption', null, h('strong', null, label), ' ', counts),
    canvas
  );
  return { canvas, counts, element };
}

// legend: [[swatch class, text]].
export function legendElement(items) {
  return h(
    'p',
    { class: 'played-legend' },
    items.map(([swatch, text]) => h('span', null, h('span', { class: `swatch ${swatch}` }), ` ${text}`))
  );
}

// build(data, dpr) -> {note} when there is nothing to play, else {words: [paragraphs], legend, panels:
// [elements], figureLabel, what, endMs, events, speed, resize(), onDraw(t), describe(t, reason)}.
export function mountPlayed(root, ctx, { className, build }) {
  const chapter = h('div', { class: `chapter ${className}` });
  root.append(chapter);
  let playback = null;
  let resizer = null;

  function clear() {
    if (playback) playback.destroy();
    if (resizer) resizer.disconnect();
    playback = null;
    resizer = null;
    chapter.replaceChildren();
    delete chapter.dataset.ready;
  }

  function show(data) {
    clear();
    const view = build(data, window.devicePixelRatio || 1);
    if (view.note) {
      chapter.append(h('p', { class: 'chapter-note' }, view.note));
      ctx.figureLanded?.();
      return;
    }
    const figure = h(
      'div',
      {
        class: 'played-panels',
        tabindex: '0',
        role: 'group',
        'aria-label': `${view.figureLabel} (space plays or pauses, arrows step)`,
      },
      view.panels
    );
    chapter.append(
      h(
        'div',
        { class: 'chapter-words' },
        view.words.map((text) => h('p', null, text))
      ),
      view.legend,
      figure
    );
    view.resize();
    playback = createPlayback(chapter, {
      what: view.what,
      endMs: view.endMs,
      events: view.events,
      speed: view.speed,
      onDraw: view.onDraw,
      describe: view.describe,
      ctx,
    });
    // The controls above the panels (sticky while the chapter scrolls: playback.css), the words after them.
    figure.before(playback.keys, playback.element);
    figure.after(playback.caption);
    chapter.dataset.ready = 'true';
    chapter.dataset.events = String(view.events.length);
    resizer = new ResizeObserver(() => {
      view.resize();
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
