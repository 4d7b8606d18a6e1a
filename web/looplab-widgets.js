// The published entry for course pages: <script type="module" src="…/web/looplab-widgets.js"></script>
// defines <looplab-experiment> (widgets/looplab-experiment.js, built on the experiment panel).
// Course pages load this path, so it stays here and re-exports what hosts and tools may use.
export { LooplabExperiment, configure, define } from './widgets/looplab-experiment.js';
