// Tiny DOM helpers. Text always goes in as text (textContent), never as HTML, so nothing from the
// URL, the module or a result can become markup.

export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  if (props) {
    for (const [key, value] of Object.entries(props)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') el.className = value;
      else if (key === 'dataset') Object.assign(el.dataset, value);
      else if (key === 'text') el.textContent = value;
      else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
      else if (value === true) el.setAttribute(key, '');
      else el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

export function $$(selector, root = document) {
  return Array.from(root.querySelectorAll(selector));
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// A panel's own markup, written in its module (never text from the URL, the module or a result), as
// elements ready to append.
export function fromTemplate(markup) {
  const template = document.createElement('template');
  template.innerHTML = markup.trim();
  return template.content;
}

// A table's head row: one column header (<th scope="col">) per label.
export function tableHead(...labels) {
  return h(
    'thead',
    null,
    h(
      'tr',
      null,
      labels.map((label) => h('th', { scope: 'col' }, label))
    )
  );
}
