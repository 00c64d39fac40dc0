// The moments playback can stop at. A step goes to the next (or previous) of them: every admission
// (a request takes a seat), every first token and every finish of the policies on screen, plus any
// extra times a chapter adds (preemptions), as one sorted list of distinct simulated times.

// queueTimelines: the simulator's queue_timeline objects ({stints, requests}); extraTimes: arrays of ms.
export function eventTimes(queueTimelines, extraTimes = []) {
  const lists = [];
  for (const q of queueTimelines) lists.push(q.stints.start_ms, q.requests.first_token_ms, q.requests.finish_ms);
  lists.push(...extraTimes);
  const all = new Float64Array(lists.reduce((n, list) => n + list.length, 0));
  let at = 0;
  for (const list of lists) {
    all.set(list, at);
    at += list.length;
  }
  all.sort();
  let distinct = 0;
  for (let i = 0; i < all.length; i += 1) {
    if (distinct === 0 || all[i] !== all[distinct - 1]) all[distinct++] = all[i];
  }
  return all.slice(0, distinct);
}

// Index of the first time > t (times.length if none).
function firstAfter(times, t) {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] > t) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// The first event after t, or null at the end.
export function nextEvent(times, t) {
  const i = firstAfter(times, t);
  return i < times.length ? times[i] : null;
}

// The last event before t, or null at the start.
export function previousEvent(times, t) {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    // first index with times[i] >= t
    const mid = (lo + hi) >> 1;
    if (times[mid] >= t) hi = mid;
    else lo = mid + 1;
  }
  return lo > 0 ? times[lo - 1] : null;
}

// How many events lie at or before t.
export function eventsUpTo(times, t) {
  return firstAfter(times, t);
}
