// A number in a table cell: its text, and its exact value in data-value (data-key names the figure) for
// tests and embedders; "–" when the value is missing. extra: {class, title}.

import { h } from './dom.js';

export function numCell(value, text, key, extra = {}) {
  const ok = Number.isFinite(value);
  return h(
    'td',
    {
      class: `num${extra.class ? ` ${extra.class}` : ''}`,
      title: extra.title,
      dataset: { key, value: ok ? String(value) : '' },
    },
    ok ? text : '–'
  );
}
