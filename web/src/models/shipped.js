// The real models served beside the page (web/build.mjs copies each one's files from build/models,
// where scripts/extract-models puts them, into dist/models): fetched by the lab's worker only when
// the reader chooses one. The single-file page carries none of them.

export const SHIPPED_MODELS = Object.freeze([
  Object.freeze({
    name: 'stories15M',
    label: 'stories15M: a real model that writes children’s stories',
    directory: 'models/stories15M',
    files: Object.freeze({ checkpoint: 'model.bin', tokenizer: 'tokenizer.bin' }),
  }),
]);

export const shippedModel = (name) => SHIPPED_MODELS.find((model) => model.name === name) || null;

// Each file's address relative to the page: {checkpoint, tokenizer}.
export function shippedFileUrls(model) {
  return Object.fromEntries(Object.entries(model.files).map(([role, file]) => [role, `${model.directory}/${file}`]));
}
