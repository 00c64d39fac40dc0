// Renders the docs the page ships (web/src/docs/shipped.js) from Markdown into pages of their own in
// dist/ (marked, at build time), under the same strict CSP as the page: no script, the stylesheet
// beside them. The page's words link to them (web/src/docs/links.js).

import fs from 'node:fs';
import path from 'node:path';
import { marked } from 'marked';
import { SHIPPED_DOCS } from './src/docs/shipped.js';

const CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
const STYLESHEET = 'doc.css';

const escapeHtml = (text) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// The doc's title: its first heading, without Markdown's code marks.
const titleOf = (markdown, source) => {
  const heading = markdown.match(/^# (.+)$/m);
  return heading ? heading[1].replace(/`/g, '') : source;
};

// root: the repository; dist: the page's folder; stylesheet: web/src/docs/doc.css. -> the pages written.
export function renderDocs(root, dist, stylesheet) {
  const written = [];
  for (const { source, page } of SHIPPED_DOCS) {
    const markdown = fs.readFileSync(path.join(root, source), 'utf8');
    const out = path.join(dist, page);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    const toPage = path.relative(path.dirname(out), path.join(dist, 'index.html'));
    const html = [
      '<!doctype html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
      `<title>${escapeHtml(titleOf(markdown, source))} · kvlab</title>`,
      // No icon of its own: the browser would ask for /favicon.ico, which a static host may not have.
      '<link rel="icon" href="data:,">',
      `<link rel="stylesheet" href="${STYLESHEET}">`,
      '</head>',
      '<body>',
      '<main>',
      `<p class="back"><a href="${toPage}">kvlab</a> · ${escapeHtml(source)}</p>`,
      marked.parse(markdown),
      '</main>',
      '</body>',
      '</html>',
      '',
    ].join('\n');
    fs.writeFileSync(out, html);
    fs.copyFileSync(stylesheet, path.join(path.dirname(out), STYLESHEET));
    written.push(page);
  }
  return written;
}
