// The playback controls of a chapter: play/pause, one step back and forward, speed, a scrubber over
// simulated time, and a caption that says in words what the current step shows. Keyboard, anywhere
// in the chapter's figure or controls: space plays or pauses, the left and right arrows step one
// event (on the scrubber too, so that an arrow always means one event).
//
// The caption is a polite live region unless the page gives its own announcer (ctx.announce), which
// then speaks the same words when the clock stops (step, seek, pause, end). While playing, the caption
// follows the clock once every CAPTION_EVERY_MS, silently (a screen reader hears where it stopped);
// the words for 0 ms at the start are shown, not announced (the chapter announces its figure).

import { h, replace } from '../shared/dom.js';
import { duration } from '../shared/format.js';
import { PlaybackClock } from './clock.js';

const TEXT_EVERY_MS = 250;
const CAPTION_EVERY_MS = 1000;

// What the keys do, shown beside the controls.
export const KEYS_HINT = 'Keys: space plays or pauses, ← and → step one event.';

export const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100];

// The speed at which `showMs` of simulated time plays in about `wallMs` (never below 1/10x).
export function speedFor(showMs, wallMs = 15000) {
  return SPEEDS.find((s) => showMs / s <= wallMs) || SPEEDS[SPEEDS.length - 1];
}

function speedText(speed) {
  return speed === 1 ? '1× (real time)' : `${speed}×`;
}

// root: the chapter's element (keys are handled inside it); what: "the queue" (in labels);
// onDraw(t_ms, animating): draws the figure (animating: an animation frame, when text beside the
// figure may wait; see TEXT_EVERY_MS); describe(t_ms, reason): the caption's words;
// ctx: {reducedMotion, announce}.
export function createPlayback(root, { what, endMs, events, speed, onDraw, describe, ctx }) {
  const reducedMotion = Boolean(ctx.reducedMotion);
  const playButton = h('button', { type: 'button', class: 'pb-play' });
  const backButton = h(
    'button',
    { type: 'button', class: 'pb-back', 'aria-label': `Step back one event in ${what}` },
    '◀ Step'
  );
  const nextButton = h(
    'button',
    { type: 'button', class: 'pb-next', 'aria-label': `Step forward one event in ${what}` },
    'Step ▶'
  );
  const speedSelect = h(
    'select',
    { class: 'pb-speed', 'aria-label': `Playback speed of ${what}` },
    SPEEDS.map((s) => h('option', { value: String(s), selected: s === speed }, speedText(s)))
  );
  const scrubber = h('input', {
    type: 'range',
    class: 'pb-scrub',
    min: '0',
    max: String(endMs),
    step: 'any',
    value: '0',
    'aria-label': `Simulated time in ${what}`,
  });
  const clockText = h('span', { class: 'pb-time', 'aria-hidden': 'true' });
  const caption = h('p', { class: 'pb-caption' });
  const bar = h(
    'div',
    { class: 'playback', role: 'group', 'aria-label': `Playback of ${what}` },
    playButton,
    backButton,
    nextButton,
    h('label', { class: 'pb-speed-label' }, 'Speed ', speedSelect),
    h('span', { class: 'pb-scrub-wrap' }, scrubber),
    clockText
  );
  // The keys, shown to everyone (the figure's name says them to a screen reader); outside the bar, so
  // that the part kept in view on a phone stays small.
  const keys = h('p', { class: 'pb-keys', 'aria-hidden': 'true' }, KEYS_HINT);
  if (reducedMotion) speedSelect.disabled = true;

  let textShownMs = -Infinity;
  let captionShownMs = -Infinity;
  const clock = new PlaybackClock({
    endMs,
    events,
    speed,
    reducedMotion,
    onChange(reason) {
      show(reason === 'frame');
      if (reason !== 'frame' && reason !== 'play') say(describe(clock.t_ms, reason));
      else if (performance.now() - captionShownMs >= CAPTION_EVERY_MS) {
        captionShownMs = performance.now();
        say(describe(clock.t_ms, 'frame'), { announce: false });
      }
    },
  });

  const live = ctx.announce ? {} : { role: 'status', 'aria-live': 'polite' };
  function say(text, { announce = true } = {}) {
    if (!ctx.announce) caption.setAttribute('aria-live', announce ? 'polite' : 'off');
    replace(caption, text);
    if (announce && ctx.announce) ctx.announce(text);
  }

  function show(animating = false) {
    const t = clock.t_ms;
    const now = performance.now();
    // While playing, the words beside the figure change a few times a second, not every frame: each
    // change of text lays the page out again.
    const text = !animating || now - textShownMs >= TEXT_EVERY_MS;
    if (text) textShownMs = now;
    onDraw(t, !text);
    scrubber.value = String(t);
    if (text) {
      const timeText = `${duration(t)} of ${duration(endMs)}`;
      scrubber.setAttribute('aria-valuetext', timeText);
      replace(clockText, timeText);
    }
    const label = reducedMotion ? 'Next ▶' : clock.playing ? '❚❚ Pause' : '▶ Play';
    if (playButton.textContent !== label) replace(playButton, label);
    playButton.setAttribute(
      'aria-label',
      reducedMotion
        ? `Next event in ${what} (reduced motion: no animation)`
        : clock.playing
          ? `Pause ${what}`
          : `Play ${what}`
    );
    backButton.disabled = t <= 0; // nothing before the start to step back to
    root.dataset.tMs = String(t);
    root.dataset.playing = String(clock.playing);
  }

  playButton.addEventListener('click', () => clock.toggle());
  backButton.addEventListener('click', () => clock.step(-1));
  nextButton.addEventListener('click', () => clock.step(1));
  speedSelect.addEventListener('change', () => clock.setSpeed(Number(speedSelect.value)));
  scrubber.addEventListener('input', () => clock.seek(Number(scrubber.value)));

  const onKey = (event) => {
    if (event.target instanceof HTMLSelectElement || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === ' ') {
      event.preventDefault(); // also keeps a focused button from being pressed by the same key
      if (event.type === 'keydown' && !event.repeat) clock.toggle();
    } else if (event.type === 'keydown' && (event.key === 'ArrowRight' || event.key === 'ArrowLeft')) {
      event.preventDefault();
      clock.step(event.key === 'ArrowRight' ? 1 : -1);
    }
  };
  root.addEventListener('keydown', onKey);
  root.addEventListener('keyup', onKey);
  root.dataset.reducedMotion = String(reducedMotion);
  for (const [key, value] of Object.entries(live)) caption.setAttribute(key, value);
  show();
  say(describe(0, 'start'), { announce: false });

  return {
    element: bar,
    keys,
    caption,
    clock,
    redraw: () => show(),
    destroy() {
      clock.destroy();
      root.removeEventListener('keydown', onKey);
      root.removeEventListener('keyup', onKey);
    },
  };
}
