// Chapter 2, "The KV cache": both paths of Part A race on the run's own token times (its data: the
// run's Part A, result.answer), with the identical tokens marked and the measured times and ratio.

import { h, replace } from '../../shared/dom.js';
import { raceLengthMs, raceSpeed, tokensAt } from './race.js';
import { raceView } from './render.js';
import { TITLE, WAITING, announcement, explanation, speedNote, tokensNote } from './words.js';

const MAX_REPLAY_MS = 6000; // a slow device's race is sped up to about this long

export const name = 'cache';
export const title = TITLE;

export function mount(root, ctx) {
  let frame = null;
  const stop = () => {
    cancelAnimationFrame(frame);
    frame = null;
  };

  function clear() {
    stop();
    replace(root, h('p', { class: 'chapter-waiting' }, WAITING));
  }

  function show(answer) {
    stop();
    const view = raceView(answer);
    const speed = raceSpeed(answer, MAX_REPLAY_MS);
    const note = h('p', { class: 'help race-speed' });
    const replay = h('button', { type: 'button', class: 'race-replay' }, 'Race again');
    const counter = (n, total) => `${n} of ${total} tokens`;
    const finishRace = () => {
      stop();
      view.setCounts({ nocache: answer.tokens_nocache.length, cache: answer.tokens_cache.length }, counter);
      replay.disabled = false;
    };
    const race = () => {
      if (ctx.reducedMotion) {
        note.textContent = 'Shown finished: your system asks for reduced motion.';
        finishRace();
        return;
      }
      note.textContent = speedNote(speed);
      replay.disabled = true;
      const started = performance.now();
      const tick = () => {
        const elapsed = (performance.now() - started) * speed;
        view.setCounts(tokensAt(answer, elapsed), counter);
        if (elapsed >= raceLengthMs(answer)) finishRace();
        else frame = requestAnimationFrame(tick);
      };
      tick();
    };
    replay.addEventListener('click', race);
    replace(
      root,
      h(
        'div',
        { class: 'chapter-split' },
        h(
          'div',
          { class: 'chapter-words' },
          explanation(answer).map((text) => h('p', null, text))
        ),
        h(
          'div',
          { class: 'chapter-picture' },
          view.cards,
          view.prompt,
          h('div', { class: 'race', dataset: { identical: String(answer.identical_tokens) } }, view.lanes),
          view.mark,
          h('p', { class: 'help' }, tokensNote(answer)),
          h('div', { class: 'race-controls' }, replay, note)
        )
      )
    );
    ctx.announceFigure(announcement(answer));
    ctx.figureLanded();
    race();
  }

  clear();
  return { show, clear, destroy: stop };
}
