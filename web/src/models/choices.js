// The model the lab runs on: random weights (the model preset's), one of the real models served
// beside the page, or a model file from the reader's disk (read in the browser, never uploaded).
// The served page offers all three; the single-file page, which carries no model file, offers the
// random models and the file picker.

import { SHIPPED_MODELS } from './shipped.js';

export const RANDOM_MODEL = 'random';
export const FILE_MODEL = 'file';

export const MODEL_LABELS = Object.freeze({
  [RANDOM_MODEL]: 'Random weights (the model preset below)',
  ...Object.fromEntries(SHIPPED_MODELS.map((model) => [model.name, model.label])),
  [FILE_MODEL]: 'A model file from your disk (read here, never uploaded)',
});

// Every choice, in the menu's order.
export const ALL_MODELS = Object.freeze([RANDOM_MODEL, ...SHIPPED_MODELS.map((model) => model.name), FILE_MODEL]);

// The choices a page offers: the served page's (withShipped) or the single file's.
export const modelChoices = (withShipped) =>
  withShipped ? ALL_MODELS : ALL_MODELS.filter((name) => name === RANDOM_MODEL || name === FILE_MODEL);

export const isRealModel = (choice) => choice !== RANDOM_MODEL;
