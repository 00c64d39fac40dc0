// Downloads: the whole result as JSON, and CSV tables (policies, per-request times, step times).

import { policyLabel } from './policies.js';

function csvCell(value) {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(rows) {
  return rows.map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

const METRICS = [
  'median_ttft_ms',
  'p95_ttft_ms',
  'p99_ttft_ms',
  'makespan_ms',
  'tokens_per_s',
  'tpot_ms',
  'median_latency_ms',
  'p95_latency_ms',
  'steps',
];

export function policiesCsv(result) {
  const rows = [['policy', 'label', ...METRICS]];
  for (const name of result.policy_order) {
    const p = result.policies[name];
    rows.push([name, policyLabel(name), ...METRICS.map((m) => p[m])]);
  }
  return toCsv(rows);
}

export function requestsCsv(result) {
  const rows = [['policy', 'request', 'arrival_ms', 'first_token_ms', 'finish_ms', 'ttft_ms', 'latency_ms']];
  for (const name of result.policy_order) {
    result.policies[name].requests.forEach((r, i) => {
      rows.push([
        name,
        i,
        r.arrival_ms,
        r.first_token_ms,
        r.finish_ms,
        r.first_token_ms - r.arrival_ms,
        r.finish_ms - r.arrival_ms,
      ]);
    });
  }
  return toCsv(rows);
}

export function stepsCsv(result) {
  const { decode, prefill } = result.steps;
  const rows = [['kind', 'rows', 'context_or_tokens', 'ms']];
  decode.rows.forEach((r, i) => decode.contexts.forEach((c, j) => rows.push(['decode', r, c, decode.ms[i][j]])));
  prefill.tokens.forEach((t, k) => rows.push(['prefill', 1, t, prefill.ms[k]]));
  return toCsv(rows);
}

export function download(filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
