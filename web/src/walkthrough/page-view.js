// Which view of the page this is, from the URL: the full page (walkthrough, then the lab bench), the
// compact view (embed.html, or ?embed), or one chapter alone (#chapter=NAME on any of the pages,
// embed.html#chapter=NAME for a blog post). The page's own hash key (chapter) is taken out here, so
// that the settings reader sees only settings.

export const CHAPTER_KEY = 'chapter';

// hash: location.hash. Returns { chapter (a name or null), chapterProblem (a message or null), settingsHash }.
export function splitHash(hash, chapterNames) {
  const text = String(hash || '').replace(/^#/, '');
  let params;
  try {
    params = new URLSearchParams(text);
  } catch (error) {
    return { chapter: null, chapterProblem: null, settingsHash: text };
  }
  const values = params.getAll(CHAPTER_KEY);
  if (!values.length) return { chapter: null, chapterProblem: null, settingsHash: text };
  params.delete(CHAPTER_KEY);
  const name = values[0];
  const known = values.length === 1 && chapterNames.includes(name);
  const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  return {
    chapter: known ? name : null,
    chapterProblem: known
      ? null
      : `The link asks for chapter “${shown}”${values.length > 1 ? ' more than once' : ''}; chapters: ${chapterNames.join(', ')}. The whole walkthrough is shown instead.`,
    // URLSearchParams writes "autorun=": keep the short form the settings reader and links use.
    settingsHash: params.toString().replace(/(^|&)autorun=(&|$)/, '$1autorun$2'),
  };
}

export function isCompactView() {
  return new URLSearchParams(location.search).has('embed') || document.body.hasAttribute('data-embed');
}

// An embedded page tells its parent how tall it is, whenever that changes (the embedding page may apply
// it to the iframe: see docs/page.md).
export function postHeightToParent() {
  if (window.parent === window) return;
  let last = -1;
  const post = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    window.parent.postMessage({ type: 'kvlab:height', height }, '*');
  };
  new ResizeObserver(post).observe(document.documentElement);
  post();
}
