// How a settings form shows what is wrong with its values, the same way in the lab's form (main.js)
// and the Memory section's: each field's message in its own box under it, the control marked
// aria-invalid, and a summary of them all. New messages appear only when Run is pressed (showAll);
// as the user edits, the messages already shown follow the values (refresh), so that nothing appears
// on blur and moves the Run button from under a click.

import { $, replace } from './dom.js';

// root: the form's panel, which holds its controls; keys: the fields in form order; idOf(key) -> the id
// of the field's control, whose message box is #<id>-error; summary: the summary's box; what: what its
// count counts ("settings").
export function formErrors({ root, keys, idOf = (key) => key, summary, what }) {
  const messageBox = (key) => $(`#${idOf(key)}-error`, root);
  const summaryText = (messages) =>
    messages.length === 1 ? messages[0] : `${messages.length} ${what} need fixing: ${messages.join(' ')}`;

  function showField(key, message) {
    const input = $(`#${idOf(key)}`, root);
    const box = messageBox(key);
    if (message) {
      input.setAttribute('aria-invalid', 'true');
      replace(box, message);
      box.hidden = false;
    } else {
      input.removeAttribute('aria-invalid');
      replace(box);
      box.hidden = true;
    }
  }

  function showAll(errors) {
    for (const key of keys) showField(key, errors[key]);
    const messages = keys.filter((k) => errors[k]).map((k) => errors[k]);
    if (messages.length) replace(summary, summaryText(messages));
    else replace(summary);
    summary.hidden = messages.length === 0;
  }

  function refresh(errors) {
    for (const key of keys) if (!messageBox(key).hidden) showField(key, errors[key]);
    if (!Object.keys(errors).length) {
      summary.hidden = true;
    } else if (!summary.hidden) {
      const shown = keys.filter((k) => errors[k] && !messageBox(k).hidden).map((k) => errors[k]);
      if (shown.length) replace(summary, summaryText(shown));
      else summary.hidden = true;
    }
  }

  return { showField, showAll, refresh };
}
