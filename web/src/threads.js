// How many threads the lab runs on, and why only one where the page cannot have more.
//
// The threaded module (kvlab-threads.js) shares its memory between threads through SharedArrayBuffer,
// which a page has only when it is cross-origin isolated: served with the Cross-Origin-Opener-Policy
// and Cross-Origin-Embedder-Policy headers, and not inside a page that is not isolated itself. Elsewhere
// the lab worker loads the single-threaded module, whose limit is one thread.

import { THREADED_LIMITS } from './generated/catalog.js';
import { SERVICE_WORKER } from './isolation/register.js';

// The settings form's choices: what the device offers, or a count up to the threaded module's limit.
export const AUTO_THREADS = 'auto';
export const THREAD_CHOICES = [
  AUTO_THREADS,
  ...Array.from({ length: THREADED_LIMITS.threads.max }, (_, i) => String(i + 1)),
];

// The count a run uses: the one asked for ('auto' or missing: what the device offers), within the
// module's limit `max`.
export function threadsToUse(wanted, { offered, max }) {
  const device = Number.isInteger(offered) && offered > 0 ? offered : 1;
  const asked = wanted === undefined || wanted === AUTO_THREADS ? device : Number(wanted);
  return Math.max(1, Math.min(Number.isInteger(asked) ? asked : 1, max));
}

// The thread workers the threaded module starts as it loads (its pthread pool: every thread of a run but
// the caller's): as many as the device's cores, within the module's limit `max`, allow a run to use. At
// least one, which the glue needs to finish loading.
export function threadWorkersFor(offered, max) {
  const device = Number.isInteger(offered) && offered > 0 ? offered : 1;
  return Math.max(1, Math.min(device, max) - 1);
}

// Why the lab runs on one thread here, or null when it can run on more. info: the lab worker's ready
// message's `threads` ({max, offered, cross_origin_isolated, threaded_module_error}); page: {standalone,
// embedded (inside another page's frame), service_worker (isolation/register.js's status)}.
export function whyOneThread(info, { standalone, embedded, service_worker: serviceWorker }) {
  if (!info) return null;
  if (info.max > 1) return info.offered > 1 ? null : 'this device offers one core.';
  if (info.threaded_module_error) return `the threaded module did not load (${info.threaded_module_error}).`;
  const notIsolated = 'this page is not cross-origin isolated: ';
  if (standalone) {
    return `${notIsolated}a single file opened from disk cannot be (the served page can, from a server that sends the COOP and COEP headers, as scripts/demo does).`;
  }
  if (embedded) return `${notIsolated}it is embedded in another page, which would have to be isolated too.`;
  if (info.cross_origin_isolated) return 'this page is cross-origin isolated, but its worker has no SharedArrayBuffer.';
  return `${notIsolated}its server does not send the Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy headers (scripts/demo does)${serviceWorkerWords(serviceWorker)}`;
}

// Why the page's service worker (isolation/register.js) did not add the headers either.
function serviceWorkerWords(status) {
  switch (status && status.state) {
    case SERVICE_WORKER.UNAVAILABLE:
      return ', and this browser gives the page no service worker to add them (one needs https or localhost, and no private window).';
    case SERVICE_WORKER.STARTING:
      return '; its service worker, which adds them, was not active in time (the next visit comes through it).';
    case SERVICE_WORKER.NO_EFFECT:
      return '; its service worker adds them, but this load was not isolated (a reload that bypasses the cache also bypasses the worker; a plain reload goes through it).';
    case SERVICE_WORKER.FAILED:
      return `; its service worker, which would add them, did not start (${status.error}).`;
    default:
      return '.';
  }
}

// Why a lab ran on fewer threads than it asked for: the check before its measurements found them no
// faster than one (steps.model.thread_check, docs/threads.md), or null.
function fewerThreadsNote(result) {
  const check = result && result.steps && result.steps.model && result.steps.model.thread_check;
  return check && check.used < check.asked ? check.reason : null;
}

// The environment panel's words: how many threads a run uses and which module runs it; lab: the last
// lab result's environment, when it ran on fewer threads than it asked for.
export function threadsWords(info, page, lab) {
  if (!info) return 'known once the module is loaded';
  const used = threadsToUse(AUTO_THREADS, info);
  const why = whyOneThread(info, page);
  if (used > 1) {
    const words = `${used} (the threaded module, up to ${info.max}; this device offers ${info.offered} cores)`;
    return lab && lab.threads < used && lab.threads_note
      ? `${words}; the last lab ran on ${lab.threads}: ${lab.threads_note}`
      : words;
  }
  return `1: ${why}`;
}

// A lab result's thread facts for its environment: the threads it ran on (environment.threads) and, when
// fewer than it could, why (environment.threads_note; null when one was asked for or the device has one
// core).
export function threadsEnvironment(result, info, page) {
  const threads = (result && result.steps && result.steps.model && result.steps.model.threads) || 1;
  return { threads, threads_note: fewerThreadsNote(result) ?? (threads === 1 ? whyOneThread(info, page) : null) };
}
