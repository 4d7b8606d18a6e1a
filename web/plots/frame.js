// The frame every plot kind draws into: <figure class="plot plot-KIND"> with its caption, a body
// and a placeholder shown until there is something to draw.
//
//   const { root, body, empty } = plotFrame(container, spec, { kind: 'bars', empty: 'Drawn at the end.' });

/** Builds the frame, appends it to `container` and returns its parts. */
export function plotFrame(container, spec, { kind, bodyClass = '', empty, captionId }) {
  const root = document.createElement('figure');
  root.className = `plot plot-${kind}`;
  root.dataset.plot = spec.id;
  const caption = document.createElement('figcaption');
  if (captionId) caption.id = captionId;
  caption.textContent = spec.title;
  const body = document.createElement('div');
  body.className = bodyClass ? `plot-body ${bodyClass}` : 'plot-body';
  const placeholder = document.createElement('p');
  placeholder.className = 'plot-empty';
  placeholder.textContent = empty;
  body.append(placeholder);
  root.append(caption, body);
  container.append(root);
  return { root, body, empty: placeholder };
}

/** Re-renders an SVG plot (bars, heatmap) when its body's width changes; returns the observer. */
export function renderOnResize(plot) {
  const observer = new ResizeObserver(() => {
    if (Math.abs(plot.body.clientWidth - plot.width) > 1) plot.render();
  });
  observer.observe(plot.body);
  return observer;
}
