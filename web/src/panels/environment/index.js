// The "This browser" panel: what the page found out about the browser and, once it is ready, the module.

import { $, fromTemplate, h, replace } from '../../shared/dom.js';
import { environmentItems } from '../../env.js';
import { threadsSituation } from '../../runs/worker-client.js';

export const name = 'environment';

const MARKUP = `
<section id="environment" class="full-only" aria-labelledby="env-title">
  <h2 id="env-title">This browser</h2>
  <dl id="env-list" class="env"></dl>
</section>`;

// ctx: the lab bench's (panels/bench.js): env (env.js's environment()), store (its module: the worker's ready message;
// its labResult, whose environment names the GPU).
export function mount(root, { env, store }) {
  root.append(fromTemplate(MARKUP));
  const list = $('#env-list', root);
  const render = ({ module, labResult }) => {
    const items = environmentItems(env, {
      situation: threadsSituation(),
      worker: module,
      lab: labResult && labResult.environment,
    });
    replace(
      list,
      items.map(([k, v]) => [h('dt', null, k), h('dd', { dataset: { key: k } }, v)])
    );
  };
  render({});
  store.subscribe((state, changes) => {
    if (changes.module || changes.labResult) render(state);
  });
  return {};
}
