// DOM helpers shared by the panel, the widget and the pages. Text only: nothing here parses HTML.

/** createElement + class + text (+ children). */
export function el(tag, className, text, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  node.append(...children);
  return node;
}

/** Saves text (or a Blob) as a file through a temporary object URL. */
export function download(filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
