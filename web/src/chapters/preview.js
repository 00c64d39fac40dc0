// TEMPORARY (issue 14): mounts the queue and memory chapters at the end of the current page, fed by
// the lab's and the Memory section's result events, until the walkthrough shell takes over their
// mounting. Nothing else depends on it.

import { h } from '../dom.js';
import * as queue from './queue/index.js';
import * as memory from './memory/index.js';

export function mountPreview(parent) {
  const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  const section = h('section', { id: 'chapters-preview', 'aria-labelledby': 'chapters-preview-title' },
    h('h2', { id: 'chapters-preview-title' }, 'Played back: the queue and the memory'));
  parent.append(section);
  const mountChapter = (chapter, event) => {
    const box = h('div', { id: `chapter-${chapter.name}`, class: 'chapter-box' }, h('h3', null, chapter.title));
    section.append(box);
    const ctx = { reducedMotion, figureLanded: () => { box.dataset.landed = 'true'; } };
    const mounted = chapter.mount(box, ctx);
    box.append(h('p', { class: 'chapter-note' }, event === 'kvlab:result' ? 'Run the lab to play its queue back.' : 'Run the memory policies (the Memory section) to play them back.'));
    document.addEventListener(event, (e) => {
      box.querySelector(':scope > .chapter-note')?.remove();
      mounted.show(e.detail);
    });
  };
  mountChapter(queue, 'kvlab:result');
  mountChapter(memory, 'kvlab:memory-result');
}
