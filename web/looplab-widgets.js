// The published entry for course pages: <script type="module" src="…/looplab-widgets.js"></script>
// (or `import 'looplab'` through a bundler) defines <looplab-experiment> (widgets/looplab-experiment.js,
// built on the experiment panel). Course pages load this path, so it stays here and re-exports what
// hosts and tools may use. `looplab/element` is the class without this define() call.
import { LooplabExperiment, configure, define } from './widgets/looplab-experiment.js';

export { LooplabExperiment, configure, define };

define();
