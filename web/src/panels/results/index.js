// The lab's results panel: Part A, Part B with the published table, the plots (render.js) and the
// downloads, drawn from the run store's last finished lab run.

import { $, $$, fromTemplate } from '../../shared/dom.js';
import { download, policiesCsv, requestsCsv, stepsCsv } from '../../shared/downloads.js';
import { renderResult } from './render.js';
import { MARKUP } from './markup.js';

export const name = 'results';

// ctx: the lab bench's (panels/bench.js): store, embed.
export function mount(root, { store, embed }) {
  root.append(fromTemplate(MARKUP));
  const results = $('#results', root);
  const downloadButtons = $$('.downloads button', root);

  const lastResult = () => store.get().labResult;
  const downloads = {
    'download-json': () => ['kvlab-result.json', `${JSON.stringify(lastResult(), null, 2)}\n`, 'application/json'],
    'download-policies': () => ['kvlab-policies.csv', policiesCsv(lastResult()), 'text/csv'],
    'download-requests': () => ['kvlab-requests.csv', requestsCsv(lastResult()), 'text/csv'],
    'download-steps': () => ['kvlab-steps.csv', stepsCsv(lastResult()), 'text/csv'],
  };
  for (const [id, file] of Object.entries(downloads)) {
    $(`#${id}`, root).addEventListener('click', () => lastResult() && download(...file()));
  }
  for (const button of downloadButtons) button.disabled = true;
  results.setAttribute('aria-busy', 'false');

  store.subscribe((state, changes) => {
    if (changes.lab) results.setAttribute('aria-busy', state.lab.state === 'running' ? 'true' : 'false');
    if (changes.labResult) {
      renderResult(state.labResult, state.labResult.settings, { full: !embed, root });
      for (const button of downloadButtons) button.disabled = false;
    }
  });
  return {};
}
