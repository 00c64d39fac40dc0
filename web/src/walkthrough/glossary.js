// The walkthrough's glossary: the words the chapters use in a sense of their own, each explained once,
// and under each chapter a line linking the ones it uses. The links open the glossary and show the term
// without touching the URL hash (which holds the page's settings).

import { h } from '../shared/dom.js';
import { docLinked } from '../docs/links.js';

export const TERMS = [
  {
    id: 'n-p',
    term: 'N and P',
    text: 'P is the prompt’s length in tokens, N the answer’s. Without a KV cache, answer token k computes all P + k − 1 positions again; with one, only its own.',
  },
  {
    id: 'row',
    term: 'Row',
    text: 'One token position going through the model’s matrices in a step. In chapter 1 the rows of a step are the positions of one conversation (the prompt, or everything again without a cache); in chapter 3 each row of a decode step belongs to a different conversation, one new token each. Either way, a step costs more the more rows it has.',
  },
  {
    id: 'slot',
    term: 'Slot (seat)',
    text: 'A place in the server’s batch, held by one request from its admission to its last token; the queue chapter draws it as a seat. B, the batch size, is the number of slots. The KV cache’s room is counted differently: in tokens, or blocks of tokens (chapter 5).',
  },
  {
    id: 'ttft',
    term: 'TTFT, median and p95',
    text: 'Time to first token: from a request’s arrival to its first answer token, waiting included. The tables give the median (half the requests wait less) and the 95th percentile, p95 (all but the slowest 5% wait less).',
  },
  {
    id: 'tp',
    term: 'TP (tensor parallelism)',
    text: 'One model split across several GPUs: each holds 1/TP of the weights and computes 1/TP of every step, and they exchange their results over the link between them at each layer.',
  },
  {
    id: 'roofline',
    term: 'Roofline',
    text: 'A model of a step’s time from the hardware’s two limits: the bytes it reads over the memory bandwidth, and its arithmetic over the peak compute. The step takes the longer of the two. The GPU choices of chapters 4 and 5 are modeled this way, not measured (docs/gpu.md).',
  },
  {
    id: 'bound',
    term: 'Memory-bound, compute-bound',
    text: 'A step is memory-bound when reading the weights and the KV cache takes longer than its arithmetic: with few rows, each weight read serves few operations. It is compute-bound when the arithmetic takes longer, with many rows; adding rows then costs time in proportion.',
  },
  {
    id: 'efficiency',
    term: 'Efficiency factors',
    text: 'Real kernels reach only part of a GPU’s peak bandwidth and compute, so the roofline multiplies each peak by a factor: one pair for every GPU, chosen to match the published measurements marked “fit”; the other published figures check it.',
  },
];

// The terms each chapter links, by chapter name.
export const CHAPTER_TERMS = {
  tokens: ['n-p', 'row'],
  cache: ['n-p'],
  rows: ['row', 'bound'],
  queue: ['slot', 'ttft', 'roofline', 'tp'],
  memory: ['slot', 'ttft', 'roofline', 'tp', 'efficiency'],
};

const termId = (id) => `term-${id}`;

// The glossary itself: a disclosure after the chapters, closed until a chapter's link opens it.
export function glossaryElement() {
  return h(
    'details',
    { id: 'glossary', class: 'glossary' },
    h('summary', null, 'Words used here'),
    h(
      'dl',
      null,
      TERMS.map(({ id, term, text }) => [
        h('dt', { id: termId(id), tabindex: '-1' }, term),
        h('dd', null, docLinked(text)),
      ])
    )
  );
}

// A chapter's line of links to its terms; each opens the glossary and moves to the term.
export function termsLine(chapter, glossary) {
  const links = CHAPTER_TERMS[chapter].map((id) => {
    const { term } = TERMS.find((t) => t.id === id);
    const link = h('a', { href: `#${termId(id)}`, dataset: { term: id } }, term);
    link.addEventListener('click', (event) => {
      event.preventDefault();
      glossary.open = true;
      const target = glossary.querySelector(`#${termId(id)}`);
      target.scrollIntoView({ block: 'center' });
      target.focus({ preventScroll: true });
    });
    return link;
  });
  const list = links.flatMap((link, i) => (i ? [', ', link] : [link]));
  return h('p', { class: 'chapter-terms' }, 'Words used here: ', list, '.');
}
