// Which modeled servers hold a model, asked of the module itself: for each weight format it offers, the
// fewest GPUs (a power of two up to max_tp) on which m.roofline() takes the model. A choice the module
// refuses (too little memory, or heads that do not split over its GPUs) becomes advice in words.

import { doesNotFitWords } from './words.js';

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
