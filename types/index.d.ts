// Types for `import 'looplab'` (dist/looplab-widgets.js): registers <looplab-experiment> and
// re-exports the element module.
import type { LooplabExperiment } from './element.js';

export * from './element.js';

declare global {
  interface HTMLElementTagNameMap {
    'looplab-experiment': LooplabExperiment;
  }
}
