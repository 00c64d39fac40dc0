// The two response headers that make a page cross-origin isolated (SharedArrayBuffer, so the threaded
// module, and the fine clock): web/serve.mjs --isolate sends them, and where a host cannot, the page's
// service worker (service-worker.js) adds them to the page's own responses.
export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};
