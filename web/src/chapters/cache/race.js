// The race of chapter 2 as a clock: both paths' measured token times (ms since each run's start,
// result.answer.token_ms_nocache / token_ms_cache), replayed at `speed` times real time.

// The playback speed: real time unless the slower path would take longer than maxMs to replay.
export function raceSpeed(answer, maxMs) {
  const slowest = Math.max(last(answer.token_ms_nocache), last(answer.token_ms_cache));
  return slowest > maxMs ? slowest / maxMs : 1;
}

const last = (list) => (list.length ? list[list.length - 1] : 0);

// How many tokens each path had produced `elapsedMs` into its run.
export function tokensAt(answer, elapsedMs) {
  const count = (times) => {
    let n = 0;
    while (n < times.length && times[n] <= elapsedMs) n += 1;
    return n;
  };
  return { nocache: count(answer.token_ms_nocache), cache: count(answer.token_ms_cache) };
}

export function raceLengthMs(answer) {
  return Math.max(last(answer.token_ms_nocache), last(answer.token_ms_cache));
}
