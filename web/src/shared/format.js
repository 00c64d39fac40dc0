// Number formatting for tables and messages (English separators, as the published lab printed).
// One function per kind of figure (duration, ratio, rate, bytes, count): a figure reads the same in
// the chapters' words, the tables, the share link's comparison and the charts' labels, since each of
// them formats it here.

const nf = (digits) => new Intl.NumberFormat('en-US', { maximumFractionDigits: digits });
const fixed = (digits) =>
  new Intl.NumberFormat('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function sig(value, digits = 3) {
  if (!Number.isFinite(value)) return '–';
  if (value === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return nf(Math.min(decimals, 6)).format(value);
}

// A duration given in ms: seconds with one decimal from 1 s up (as the lab printed), else ms.
// The unit is chosen on the value as written (999.96 ms reads "1.0 s", not "1,000 ms").
export function duration(ms) {
  if (!Number.isFinite(ms)) return '–';
  const threeFigures = (value) => Math.abs(Number(value.toPrecision(3)));
  if (threeFigures(ms) >= 1000) return `${fixed(1).format(ms / 1000)} s`;
  if (threeFigures(ms) >= 1) return `${sig(ms, 3)} ms`;
  if (ms === 0) return '0 ms';
  return `${sig(ms * 1000, 3)} µs`;
}

const DURATION_UNITS_MS = { s: 1000, ms: 1, µs: 0.001 };

// The number of ms that duration() writes for `ms` ("1,231.9 s" -> 1231900): what a figure keeps when
// it is stored short (the share link) and must read the same when written again.
export function shownDuration(ms) {
  if (!Number.isFinite(ms)) return ms;
  const [number, unit] = duration(ms).split(' ');
  return Number(number.replace(/,/g, '')) * DURATION_UNITS_MS[unit];
}

// "1 slot", "16 slots", "1 row": a count with its noun, plural unless it is one.
export function count(value, noun) {
  return `${int(value)} ${noun}${Math.round(value) === 1 ? '' : 's'}`;
}

// A rate: "269 tokens/s", "3.5 requests/s". Whole numbers from 100 up, else three figures.
export function rate(value, unit = 'tokens/s') {
  if (!Number.isFinite(value)) return '–';
  return `${Math.abs(value) >= 100 ? int(value) : sig(value, 3)} ${unit}`;
}

// A phase or sentence with its first letter upper-case ("measuring" -> "Measuring").
export const capitalized = (text) => text.replace(/^(.)/, (c) => c.toUpperCase());

export function int(value) {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}

// A spread (the samples' (max - min) / median, a fraction) as the page writes it beside a noisy
// figure: "±41%" (half the range around the median).
export function spread(fraction) {
  return Number.isFinite(fraction) ? `±${sig((fraction * 100) / 2, 2)}%` : '–';
}

// A percentage given in percent: "12.5%".
export function pct(value, digits = 3) {
  return Number.isFinite(value) ? `${sig(value, digits)}%` : '–';
}

// A relative error given as a fraction, in percent to one decimal with its sign, as the CLI prints it:
// "+1.4%", "−8.6%", "0.0%". Errors are of a few percent; a hundredth of one is noise.
export function signedPct(fraction) {
  if (!Number.isFinite(fraction)) return '–';
  const tenths = Math.round(fraction * 1000);
  return `${tenths > 0 ? '+' : tenths < 0 ? '−' : ''}${(Math.abs(tenths) / 10).toFixed(1)}%`;
}

// A ratio: "1.85×", "18.1×", "231×".
export function ratio(value) {
  if (!Number.isFinite(value)) return '–';
  return `${value >= 100 ? int(value) : sig(value, 3)}×`;
}

export function bytes(n) {
  if (!Number.isFinite(n)) return '–';
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  let v = n;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  if (i === 0) return `${int(v)} ${v === 1 ? 'byte' : 'bytes'}`;
  return `${Number.isInteger(v) ? int(v) : sig(v, 3)} ${units[i]}`;
}
