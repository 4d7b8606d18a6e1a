// The charts of an experiment, one per entry of describe.plots; createPlot() picks the kind from spec.type:
//   line plots (the default): live, drawn as points arrive (line.js)
//   {type: 'bars', source: 'runs', category, value, ...}: drawn from the finished result (bars.js)
//   {type: 'heatmap', source, row, col, value, scale}: drawn from the finished result (heatmap.js)
//   {type: 'contour', panels, levels, data, ...}: contour lines with live paths, on a canvas (contour.js)
//
//   const plot = createPlot(container, spec, colorOf);   // colorOf(name, index) -> CSS colour
//   plot.append(progress.series);       // live (bar plots and heatmaps ignore it)
//   plot.finish(result);                // the complete result at the end
//   plot.destroy();
import { seriesColors } from './colors.js';
import { LivePlot } from './line.js';
import { BarPlot } from './bars.js';
import { HeatmapPlot } from './heatmap.js';
import { ContourPlot } from './contour.js';

/** The plot for one describe.plots entry. */
export function createPlot(container, spec, colorOf = seriesColors([spec])) {
  if (spec.type === 'heatmap') return new HeatmapPlot(container, spec);
  if (spec.type === 'contour') return new ContourPlot(container, spec, colorOf);
  return spec.type === 'bars' ? new BarPlot(container, spec, colorOf) : new LivePlot(container, spec, colorOf);
}
