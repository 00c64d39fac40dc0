// Where the host cannot send the COOP and COEP headers, the served page makes itself cross-origin
// isolated with its service worker (service-worker.js, dist/isolation-worker.js): it registers it and,
// once it is active, loads the page once more, this time through it (docs/threads.md, "Static hosts").
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
  STARTING: 'starting', // registered; the page reloads once it is active
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

export function isolateWithServiceWorker({ standalone, framed }) {
  if (self.crossOriginIsolated || standalone || framed) return;
  const container = navigator.serviceWorker;
  const reloaded = reloadedBefore();
  if (!container || !self.isSecureContext || !/^https?:$/.test(location.protocol) || reloaded === null) {
    status = { state: SERVICE_WORKER.UNAVAILABLE, error: null };
    return;
  }
  if (container.controller || reloaded) {
    status = { state: SERVICE_WORKER.NO_EFFECT, error: null };
    return;
  }
  status = { state: SERVICE_WORKER.STARTING, error: null };
  // The link as it came: the page drops `autorun` from its hash once it starts a run, and the run it
  // started must start again after the reload.
  const link = location.href;
  container
    .register(new URL(ISOLATION_WORKER_FILE, document.baseURI))
    .then(() => container.ready)
    .then(() => {
      sessionStorage.setItem(RELOADED_KEY, '1');
      history.replaceState(history.state, '', link);
      location.reload();
    })
    .catch((error) => {
      status = { state: SERVICE_WORKER.FAILED, error: error.message };
    });
}
