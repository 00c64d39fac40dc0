// The reader's own model files, as a file input gives them: one GGUF file, or a llama2.c checkpoint
// and its tokenizer file (told apart by name, else by size: the tokenizer is the smaller). They are
// read by the lab's worker in this browser (worker/model-loader.js) and never sent anywhere.

import { count } from '../shared/format.js';

const isGguf = (file) => /\.gguf$/i.test(file.name);

// files: a FileList or an array of File. Returns {files: {gguf} | {checkpoint, tokenizer}, name} or
// {error} (a message naming the field).
export function pickedModel(files) {
  const list = Array.from(files || []);
  const wrong = `Model file: choose one .gguf file, or a llama2.c checkpoint and its tokenizer file together (got ${count(list.length, 'file')}`;
  if (list.length === 1 && isGguf(list[0]))
    return { files: { gguf: list[0] }, name: list[0].name.replace(/\.gguf$/i, '') };
  if (list.length === 1) return { error: `${wrong}: ${list[0].name}, which is not a .gguf file).` };
  if (list.length !== 2 || list.some(isGguf)) return { error: `${wrong}).` };
  const named = list.find((file) => /tokenizer/i.test(file.name));
  const tokenizer = named || (list[0].size <= list[1].size ? list[0] : list[1]);
  const checkpoint = list.find((file) => file !== tokenizer);
  return { files: { checkpoint, tokenizer }, name: checkpoint.name.replace(/\.bin$/i, '') };
}
