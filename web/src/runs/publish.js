// Where the page's results go out. Every run writes its result into the run store (runs/store.js); this
// module alone hands each one on to whoever reads the page from outside (an embedding page, a test,
// docs/page.md "Hooks"): a window property and an event on document, and for the lab's result of an
// embedded page a message to its parent. It listens last, so the chapters and panels have drawn a
// result by the time it goes out.

// The store key of each result, and how it goes out: the window property, the event on document, and
// the message to the parent page (null: none). The lab's result goes out once its link is made (the
// store's shareUrl follows labResult; share_url is in the result by then), and to the parent of an embed
// only; a chapter's figure landing (the walkthrough's `figure`) to any parent.
const OUTLETS = [
  {
    key: 'labResult',
    when: 'shareUrl',
    global: 'kvlabResult',
    event: 'kvlab:result',
    message: (result, embed) => embed && { type: 'kvlab:result', result },
  },
  { key: 'memory', global: 'kvlabMemoryResult', event: 'kvlab:memory-result' },
  { key: 'replay', global: 'kvlabReplayResult', event: 'kvlab:replay-result' },
  { key: 'simd', global: 'kvlabSimdResult', event: 'kvlab:simd-result' },
  { key: 'hardware', global: 'kvlabHardwareResult', event: 'kvlab:hardware-result' },
  { key: 'shared', global: 'kvlabShared' },
  { key: 'figure', event: 'kvlab:figure', message: (figure) => ({ type: 'kvlab:figure', ...figure }) },
];

// store: the run store; embed: whether the page is an embed (the compact view or one chapter).
export function publishResults(store, { embed }) {
  store.subscribe((state, changes) => {
    for (const { key, when = key, global, event, message } of OUTLETS) {
      const result = state[key];
      if (!(when in changes) || result === null || result === undefined) continue;
      if (global) window[global] = result;
      if (event) document.dispatchEvent(new CustomEvent(event, { detail: result }));
      const toParent = message && window.parent !== window && message(result, embed);
      // Results are benchmark figures, nothing private: any embedding page may have them.
      if (toParent) window.parent.postMessage(toParent, '*');
    }
  });
}
