// Which view of the page this is, from the URL: the full page (walkthrough, then the lab bench), the
// compact view (embed.html, or ?embed), or one chapter alone (#chapter=NAME on any of the pages,
// embed.html#chapter=NAME for a blog post). The page's own hash key (chapter) is taken out here, so
// that the settings reader sees only settings.

import { SHARE_KEY } from '../runs/share.js';

export const CHAPTER_KEY = 'chapter';
// A chapter embed's own keys: `compact` (the phone-sized version of a long chapter) and `height=N`
// (the author's height in CSS pixels; the embed scrolls inside it).
export const COMPACT_KEY = 'compact';
export const HEIGHT_KEY = 'height';
export const HEIGHT_RANGE_PX = [160, 4000];

// The view's keys as the hash writes them back (the settings follow them).
export function viewHash({ chapter, compact, heightPx, sharedToken }) {
  return [
    sharedToken && `${SHARE_KEY}=${sharedToken}`,
    chapter && `${CHAPTER_KEY}=${chapter}`,
    chapter && compact && COMPACT_KEY,
    chapter && heightPx && `${HEIGHT_KEY}=${heightPx}`,
  ]
    .filter(Boolean)
    .join('&');
}

// The author's height: a whole number of CSS pixels in HEIGHT_RANGE_PX, or null with a message.
function readHeight(values) {
  if (!values.length) return { heightPx: null, heightProblem: null };
  const [low, high] = HEIGHT_RANGE_PX;
  const value = Number(values[0]);
  if (values.length === 1 && /^\d+$/.test(values[0]) && value >= low && value <= high)
    return { heightPx: value, heightProblem: null };
  const shown = values[0].length > 12 ? `${values[0].slice(0, 12)}…` : values[0];
  return {
    heightPx: null,
    heightProblem: `The link’s height “${shown}” is not a whole number of pixels from ${low} to ${high}${values.length > 1 ? ' given once' : ''}; the embed takes the height it needs.`,
  };
}

// hash: location.hash. Returns { chapter (a name or null), chapterProblem (a message or null), compact,
// heightPx (a number or null), heightProblem, sharedToken (a shared result's, runs/share.js), settingsHash }.
export function splitHash(hash, chapterNames) {
  const text = String(hash || '').replace(/^#/, '');
  const none = {
    chapter: null,
    chapterProblem: null,
    compact: false,
    heightPx: null,
    heightProblem: null,
    sharedToken: null,
  };
  let params;
  try {
    params = new URLSearchParams(text);
  } catch (error) {
    return { ...none, settingsHash: text };
  }
  const sharedToken = params.get(SHARE_KEY);
  if (sharedToken !== null) params.delete(SHARE_KEY);
  // URLSearchParams writes "autorun=": keep the short form the settings reader and links use.
  const rest = () => params.toString().replace(/(^|&)autorun=(&|$)/, '$1autorun$2');
  const values = params.getAll(CHAPTER_KEY);
  if (!values.length) return { ...none, sharedToken, settingsHash: sharedToken === null ? text : rest() };
  const compact = params.has(COMPACT_KEY);
  const height = readHeight(params.getAll(HEIGHT_KEY));
  for (const key of [CHAPTER_KEY, COMPACT_KEY, HEIGHT_KEY]) params.delete(key);
  const name = values[0];
  const known = values.length === 1 && chapterNames.includes(name);
  const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  return {
    chapter: known ? name : null,
    compact: known && compact,
    ...(known ? height : { heightPx: null, heightProblem: null }),
    chapterProblem: known
      ? null
      : `The link asks for chapter “${shown}”${values.length > 1 ? ' more than once' : ''}; chapters: ${chapterNames.join(', ')}. The whole walkthrough is shown instead.`,
    sharedToken,
    settingsHash: rest(),
  };
}

export function isCompactView() {
  return new URLSearchParams(location.search).has('embed') || document.body.hasAttribute('data-embed');
}
