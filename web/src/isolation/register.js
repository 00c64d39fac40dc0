// Where the host cannot send the COOP and COEP headers, the served page makes itself cross-origin
// isolated with its service worker (service-worker.js, dist/isolation-worker.js): it registers it and,
// once it is active, loads the page once more, this time through it (docs/threads.md, "Static hosts").
// The page starts its lab only when it knows it will not reload, so nothing is cut off by the reload.
// Not tried:
//   - where the page is isolated already (its server sends the headers);
//   - the single file (file://, where there are no service workers; its CSP allows blob: workers only);
//   - inside another page's frame (an embed): a frame is isolated only if the page around it is isolated
//     too and lets it be, which a third-party page is not, so the worker would reload the frame for
//     nothing and stay registered in the storage the browser keeps apart for that site;
//   - where the browser offers none (not a secure context: https or localhost; a private window).
// The page reloads at most once per tab (sessionStorage): still not isolated after that, it runs on one
// thread and says why (threads.js).

export const ISOLATION_WORKER_FILE = 'isolation-worker.js';
const RELOADED_KEY = 'kvlab-isolation-reloaded';

// What the service worker did, for the words on threads (threads.js).
export const SERVICE_WORKER = {
  NOT_TRIED: 'not tried', // isolated already, the single file, or an embed (threads.js says why for each)
  UNAVAILABLE: 'unavailable',
  STARTING: 'starting', // registered, not active within ACTIVE_LIMIT_MS: the next visit comes through it
  NO_EFFECT: 'no effect', // the page came through it and is still not isolated
  FAILED: 'failed',
};

let status = { state: SERVICE_WORKER.NOT_TRIED, error: null };
export const serviceWorkerStatus = () => status;

// Whether this tab has reloaded for the worker already; null where there is no session storage (no
// reload then: nothing would stop a second one).
function reloadedBefore() {
  try {
    return sessionStorage.getItem(RELOADED_KEY) !== null;
  } catch (error) {
    return null;
  }
}

// How long the page waits for a newly registered worker to become active before it starts without it
// (the next visit then comes through it).
const ACTIVE_LIMIT_MS = 3000;

// Resolves to true when the page is about to reload through the worker (the page then starts nothing),
// else to false, at once where the worker is not tried.
export function isolateWithServiceWorker({ standalone, framed }) {
  if (self.crossOriginIsolated || standalone || framed) return Promise.resolve(false);
  const container = navigator.serviceWorker;
  const reloaded = reloadedBefore();
  if (!container || !self.isSecureContext || !/^https?:$/.test(location.protocol) || reloaded === null) {
    status = { state: SERVICE_WORKER.UNAVAILABLE, error: null };
    return Promise.resolve(false);
  }
  if (container.controller || reloaded) {
    status = { state: SERVICE_WORKER.NO_EFFECT, error: null };
    return Promise.resolve(false);
  }
  status = { state: SERVICE_WORKER.STARTING, error: null };
  const late = new Promise((resolve) => setTimeout(() => resolve(false), ACTIVE_LIMIT_MS));
  const active = container
    .register(new URL(ISOLATION_WORKER_FILE, document.baseURI))
    .then((registration) => {
      if (!registration) throw new Error('the browser gave no registration');
      return container.ready;
    })
    .then(() => true);
  return Promise.race([active, late]).then(
    (ready) => {
      if (!ready) return false;
      sessionStorage.setItem(RELOADED_KEY, '1');
      location.reload();
      return true;
    },
    (error) => {
      status = { state: SERVICE_WORKER.FAILED, error: error.message };
      return false;
    }
  );
}
