// The page's service worker (dist/isolation-worker.js, registered by register.js): on a host that
// cannot send headers it gives every response of the page's own origin the COOP and COEP headers,
// so that the page, loaded once more through it, is cross-origin isolated (docs/threads.md).
// It caches nothing and fetches nothing of its own: each request goes where it would without it (a new
// build is seen at once, and offline it fails as it would anyway); requests to other origins, which the
// page's CSP refuses, are left alone.

import { ISOLATION_HEADERS } from './headers.js';

// A new build's worker takes over from the old one at once rather than when every tab has closed.
self.addEventListener('install', () => self.skipWaiting());

// Opaque responses (a redirect the browser follows itself) pass through unchanged: their headers
// cannot be read, and the response they lead to comes back through this worker.
function withIsolationHeaders(response) {
  if (response.type === 'opaqueredirect' || response.status === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION_HEADERS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener('fetch', (event) => {
  if (new URL(event.request.url).origin !== self.location.origin) return;
  event.respondWith(fetch(event.request).then(withIsolationHeaders));
});
