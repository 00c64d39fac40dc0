// Parsing one form or hash value against a field's spec ({label, kind: 'int' | 'number' | 'choice',
// min, max, choices}), with a message that names the field and its range, and finding the field that
// an error from the module is about. Used by the lab's settings (config.js) and the Memory section's
// (panels/memory/config.js).

export function show(text) {
  const t = String(text);
  return t.length > 40 ? JSON.stringify(t.slice(0, 40) + '…') : JSON.stringify(t);
}

export function rangeText(lo, hi) {
  return `${lo.toLocaleString('en-US')} to ${hi.toLocaleString('en-US')}`;
}

// A field's range for its help text, "1–65,536", from its spec (where the limits are defined once).
export function rangeHelp({ min, max }) {
  const number = (x) => x.toLocaleString('en-US', { maximumFractionDigits: 6 });
  return `${number(min)}–${number(max)}`;
}

// Returns {value} or {error}. `limits` may tighten the spec for this call: {max, why}, `why` going into
// the message after the range (e.g. " for the tiny model, whose cache holds 160 positions").
export function parseSpec(f, raw, limits = {}) {
  const text = raw === undefined || raw === null ? '' : String(raw).trim();
  if (f.kind === 'choice') {
    if (f.choices.includes(text)) return { value: text };
    return { error: `${f.label} must be one of ${f.choices.join(', ')} (got ${show(text)}).` };
  }
  const whole = f.kind === 'int';
  const max = limits.max ?? f.max ?? Number.MAX_SAFE_INTEGER;
  const why = limits.why || '';
  // Every message gives the range, whatever was wrong with the value.
  const range = `from ${rangeText(f.min, max)}${why}`;
  if (text === '') return { error: `${f.label} is required: enter a ${whole ? 'whole number' : 'number'} ${range}.` };
  if (!/^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
    return { error: `${f.label} must be a ${whole ? 'whole number' : 'number'} (got ${show(text)}), ${range}.` };
  }
  const value = Number(text);
  if (!Number.isFinite(value)) return { error: `${f.label} must be a finite number (got ${show(text)}), ${range}.` };
  if (whole && !Number.isInteger(value)) {
    return { error: `${f.label} must be a whole number (got ${show(text)}), ${range}.` };
  }
  if (value < f.min || value > max) {
    return { error: `${f.label} must be from ${rangeText(f.min, max)}${why} (got ${show(text)}).` };
  }
  return { value };
}

// The form field that an error from the module is about, by the field's path that the module reports
// with it (error.path, e.g. "options.workload.prompt[1]"): the entry of `fieldOfPath` ({path: key}) for
// that path or the nearest one above it ("options.workload.prompt", "options.workload"); null if none.
export function fieldOfErrorPath(path, fieldOfPath) {
  let p = typeof path === 'string' ? path : '';
  while (p) {
    if (Object.hasOwn(fieldOfPath, p)) return fieldOfPath[p];
    const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
    p = cut > 0 ? p.slice(0, cut) : '';
  }
  return null;
}
