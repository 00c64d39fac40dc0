// A text that mentions a shipped doc ("… (docs/gpu.md) …") as nodes for h(): each mention becomes a link
// to the doc's page in dist/ (shipped.js), where the page ships it.

import { h } from '../shared/dom.js';
import { standalone } from '../runs/worker-client.js';
import { SHIPPED_DOCS } from './shipped.js';

const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const MENTION = new RegExp(`(${SHIPPED_DOCS.map((d) => escaped(d.source)).join('|')})`);

// -> an array of strings and <a> elements, the text unchanged.
export function docLinked(text) {
  if (standalone) return [text];
  return text
    .split(MENTION)
    .filter((part) => part !== '')
    .map((part) => {
      const doc = SHIPPED_DOCS.find((d) => d.source === part);
      return doc ? h('a', { href: doc.page, target: '_blank', rel: 'noopener' }, part) : part;
    });
}
