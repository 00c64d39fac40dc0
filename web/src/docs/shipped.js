// The docs the page ships beside itself: web/build.mjs renders each into dist/ as a page of its own
// (web/render-docs.mjs), and the page's words link every mention of one (links.js). The single-file page ships
// none: it is meant to travel alone, so there its mentions stay plain text.
export const SHIPPED_DOCS = [{ source: 'docs/gpu.md', page: 'docs/gpu.html' }];
