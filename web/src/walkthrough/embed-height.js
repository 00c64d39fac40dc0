// An embedded page tells its parent how tall it is ({type: 'kvlab:height', height}, CSS pixels; the
// embedding page applies it to the iframe: see docs/page.md), so that a post does not jump:
// - at load it reserves its chapter's usual height (HEIGHT_ESTIMATES_PX, the final heights measured at
//   a desktop and a phone width) and posts it, before anything is measured;
// - while a run goes (and, after it, while a chapter still waits for its figure: the memory chapter's
//   own simulation), the height only grows, so parts landing one after another do not make it shrink
//   and grow again; then the exact final height is posted;
// - it posts whether or not it is on screen: a browser does not lay out, nor report resizes of, a
//   frame out of view, so besides the ResizeObserver a timer reads the height every HEIGHT_POLL_MS;
// - with the author's height (heightPx) it posts that alone, and the page scrolls inside it.

const HEIGHT_POLL_MS = 500;
const NARROW_MAX_PX = 699; // style.css's one-column layout
// chapter -> [at a desktop width, at a phone width]: the final heights measured with the default
// settings in a 736 px and a 358 px wide frame; NAME-compact: the chapter's compact version.
export const HEIGHT_ESTIMATES_PX = {
  tokens: [751, 1228],
  cache: [939, 1474],
  rows: [723, 1126],
  queue: [2755, 3300],
  memory: [1352, 2046],
  'queue-compact': [1539, 1883],
  'memory-compact': [983, 1358],
};

// chapter: the chapter shown alone, or null; compact; heightPx: the author's height, or null;
// store: the run store (its lab state says whether a run goes); walkthrough: the walkthrough's element
// (its chapters say whether one still waits for its figures). Nothing happens outside a frame.
export function postHeightToParent({ chapter, compact, heightPx, store, walkthrough }) {
  if (window.parent === window) return;
  const html = document.documentElement;
  let last = -1;
  let reserved = 0; // the height held while a run goes
  const send = (height) => {
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'kvlab:height', height }, '*');
  };
  if (heightPx) {
    html.classList.add('fixed-height');
    html.style.height = `${heightPx}px`;
    send(heightPx);
    return;
  }
  const measure = () => Math.ceil(html.getBoundingClientRect().height);
  const post = () => {
    const { state } = store.get().lab;
    const chapterWaits = state === 'done' && walkthrough.querySelector('.story-chapter[data-state="waiting"]');
    if (state !== 'running' && !chapterWaits) {
      reserved = 0;
      html.style.minHeight = '';
      send(measure());
      return;
    }
    reserved = Math.max(reserved, measure());
    html.style.minHeight = `${reserved}px`;
    send(reserved);
  };
  const estimates =
    chapter && (HEIGHT_ESTIMATES_PX[compact ? `${chapter}-compact` : chapter] || HEIGHT_ESTIMATES_PX[chapter]);
  if (estimates) {
    const narrow = window.innerWidth <= NARROW_MAX_PX;
    reserved = Math.max(measure(), estimates[narrow ? 1 : 0]);
    html.style.minHeight = `${reserved}px`;
  }
  new ResizeObserver(post).observe(html);
  setInterval(post, HEIGHT_POLL_MS);
  store.subscribe(() => setTimeout(post));
  send(Math.max(reserved, measure()));
}
