// One SVG element with attributes and text: the bar and heatmap charts are built from these (real text
// nodes, so numbers stay readable by screen readers and tests; nothing is parsed as HTML).
const SVG = 'http://www.w3.org/2000/svg';

export function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}
