// Chapter 3, "One step, many rows": the measured decode step against the rows in it at a fixed context,
// the tokens/s each row count gives, and why the extra rows ride along (its data: the run's step table,
// result.steps).

import { h, replace } from '../../shared/dom.js';
import { stepsByRows } from '../../shared/steps.js';
import { gainChart, rowsCharts } from './render.js';
import {
  TITLE,
  WAITING,
  announcement,
  explanation,
  gainLabels,
  gainWords,
  mostSharedRows,
  noisyPoints,
  statedGain,
  threadsWords,
} from './words.js';
import { count, rate, ratio } from '../../shared/format.js';

export const name = 'rows';
export const title = TITLE;

// On the GPU's steps that carry the CPU's decode steps (steps.cpu_decode, both from 1 row): the two rows
// gains on one chart, and the words comparing them, when both have a row count past 1 in common; else
// nothing.
function gainFigure(steps, gpu) {
  if (!steps.cpu_decode || steps.cpu_decode.rows[0] !== 1 || gpu.points[0].rows !== 1) return null;
  const cpu = stepsByRows({ decode: steps.cpu_decode });
  if (mostSharedRows(cpu, gpu) < 2) return null;
  const labels = gainLabels(steps.model);
  const { svg, legend } = gainChart([
    { key: 'cpu', label: labels.cpu, points: cpu.points },
    { key: 'gpu', label: labels.gpu, points: gpu.points },
  ]);
  return {
    words: gainWords(cpu, gpu, steps.model),
    figure: h(
      'figure',
      { class: 'chapter-figure rows-gain-figure' },
      svg,
      legend,
      h('figcaption', null, `Rows gain on this device’s CPU and GPU, context ${gpu.context}`)
    ),
  };
}

// On a lab that ran on threads (steps.one_thread_decode, timed on one thread at the same rows and
// context): the rows gain on one thread and on all of them on one chart, and the words comparing them.
function threadsFigure(steps, all) {
  const decode = steps.one_thread_decode;
  if (!decode || decode.contexts[0] !== all.context || decode.rows[0] !== 1 || all.points[0].rows !== 1) return null;
  const one = stepsByRows({ decode });
  if (mostSharedRows(one, all) < 2) return null;
  const threads = steps.model.threads;
  const { svg, legend } = gainChart([
    { key: 'one-thread', label: '1 thread', points: one.points },
    { key: 'all-threads', label: `${threads} threads`, points: all.points },
  ]);
  return {
    words: threadsWords(one, all, threads),
    figure: h(
      'figure',
      { class: 'chapter-figure rows-gain-figure rows-threads-figure' },
      svg,
      legend,
      h('figcaption', null, `Rows gain on one thread and on ${threads}, context ${all.context}`)
    ),
  };
}

export function mount(root, ctx) {
  function clear() {
    replace(root, h('p', { class: 'chapter-waiting' }, WAITING));
  }

  function show(steps) {
    const byRows = stepsByRows(steps);
    const { stepTime, throughput } = rowsCharts(byRows, noisyPoints(byRows, steps));
    const lastPoint = byRows.points[byRows.points.length - 1];
    const gainShown = statedGain(byRows, steps);
    const gain = gainFigure(steps, byRows) || threadsFigure(steps, byRows);
    replace(
      root,
      h(
        'div',
        { class: 'chapter-split' },
        h(
          'div',
          { class: 'chapter-words' },
          explanation(byRows, steps).map((text) => h('p', null, text)),
          gain && h('p', { class: 'rows-gain-words' }, gain.words)
        ),
        h(
          'div',
          { class: 'chapter-picture two-figures' },
          h(
            'figure',
            { class: 'chapter-figure' },
            stepTime,
            h('figcaption', null, `Time of one decode step, context ${byRows.context}`)
          ),
          h(
            'figure',
            { class: 'chapter-figure' },
            throughput,
            h(
              'figcaption',
              null,
              'Tokens per second: ',
              gainShown === null
                ? h(
                    'strong',
                    {
                      class: 'figure-value noisy-mark',
                      dataset: { key: 'tokens_per_s', value: String(lastPoint.tokens_per_s), noisy: 'true' },
                    },
                    `${rate(lastPoint.tokens_per_s)} with ${count(lastPoint.rows, 'row')}: noisy, no gain read off them`
                  )
                : h(
                    'strong',
                    { class: 'figure-value', dataset: { key: 'tokens_per_s_ratio', value: String(gainShown) } },
                    `${ratio(gainShown)} with ${count(lastPoint.rows, 'row')}`
                  )
            )
          ),
          gain && gain.figure
        )
      )
    );
    root.dataset.points = JSON.stringify(byRows.points);
    ctx.announceFigure(announcement(byRows));
    ctx.figureLanded();
  }

  clear();
  return { show, clear, destroy() {} };
}
