// Which modeled servers hold a model, asked of the module itself: for each weight format it offers, the
// fewest GPUs (a power of two up to max_tp) on which m.roofline() takes the model. A choice the module
// refuses (too little memory, or heads that do not split over its GPUs) becomes advice in words.

import { int, sig } from '../shared/format.js';

// roofline: the refused choice's m.roofline() options; presets: m.rooflinePresets(). Returns
// [{weights, tp, model}] (tp null, model undefined, where no count up to max_tp holds it).
export function fewestGpus(m, roofline, presets) {
  return presets.weights.map((weights) => {
    for (let tp = 1; tp <= presets.max_tp; tp *= 2) {
      try {
        return { weights, tp, model: m.roofline({ ...roofline, weights, tp }).model };
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
      }
    }
    return { weights, tp: null };
  });
}

// m.roofline(roofline), or, when the module refuses its GPU count, a RangeError that says in words what
// the model needs and what holds it (its path the module's, so that the page knows the field).
export function rooflineOrAdvice(m, roofline) {
  try {
    return m.roofline(roofline);
  } catch (error) {
    if (!(error instanceof RangeError) || !/\.tp$/.test(error.path || '')) throw error;
    const presets = m.rooflinePresets();
    const advice = new RangeError(doesNotFitWords(roofline, presets, fewestGpus(m, roofline, presets)));
    advice.path = error.path;
    throw advice;
  }
}

const withoutDetail = (description) => description.replace(/ \(.*\)$/, '');
const gpusText = (count, gpu) => (count === 1 ? `1 × ${gpu}` : `${int(count)} × ${gpu}`);

// A modeled server the module refused, as advice: what the model needs, what the chosen GPUs hold, and
// the fewest GPUs that hold it in each weight format. roofline: the choice ({gpu, model, weights, tp});
// presets: rooflinePresets(); fits: fewestGpus() above.
export function doesNotFitWords(roofline, presets, fits) {
  const gpu = presets.gpus.find((g) => g.name === roofline.gpu);
  const model = presets.models.find((x) => x.name === roofline.model);
  const name = withoutDetail(model.description);
  const weights = roofline.weights || presets.weights[0];
  const same = fits.find((f) => f.weights === weights);
  // The chosen weight format first: more GPUs of it, or else fewer with smaller weights.
  const held = fits.filter((f) => f.tp !== null).sort((a, b) => (b.weights === weights) - (a.weights === weights));
  const options = held.map(
    (f, i) =>
      `${i ? 'or ' : ''}${f.weights === weights ? '' : `with ${f.weights} weights `}on ${i ? int(f.tp) : gpusText(f.tp, gpu.description)}`
  );
  const where = held.length
    ? `It fits ${options.join(', ')}.`
    : `It fits on no count up to ${int(presets.max_tp)} in any weight format: choose a larger GPU or a smaller model.`;
  if (same && same.tp !== null && same.tp < roofline.tp)
    return `${name} has ${int(model.n_kv_heads)} KV heads, which ${gpusText(roofline.tp, gpu.description)} cannot share evenly. ${where}`;
  const reserve = held.length ? held[0].model.memory_reserve_fraction : null;
  const need =
    same && same.tp !== null
      ? `needs ${sig(same.model.weight_bytes / 1e9, 3)} GB for its weights and room beside them for a KV cache, but`
      : 'does not fit:';
  const holds =
    reserve === null
      ? ''
      : ` holds ${sig((gpu.memory_bytes * roofline.tp * (1 - reserve)) / 1e9, 3)} GB (${sig(gpu.memory_bytes / 1e9, 3)} GB each, less ${int(reserve * 100)}% kept for the runtime)`;
  return `${name} with ${weights} weights ${need} ${gpusText(roofline.tp, gpu.description)}${holds}. ${where}`;
}
