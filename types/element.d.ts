// Types for `looplab/element` (dist/looplab-element.js): the <looplab-experiment> class, not registered.
//
//   import { LooplabExperiment, define } from 'looplab/element';
//   define('my-experiment');          // or customElements.define('my-experiment', class extends LooplabExperiment {})
import type { Config, Description, ExperimentInfo, LooplabClient, Result } from './api.js';

/**
 * The element's own attributes. Every parameter of the chosen experiment is an attribute too, under
 * its CLI name (`lr_raw="3e-4"`); `describe(experiment).parameters` lists them.
 */
export interface LooplabExperimentAttributes {
  /** The experiment id (default `standardization`). */
  experiment?: string;
  /** Parameters the reader may change: names separated by spaces or commas, or `all`. */
  controls?: string;
  /** Run once when scrolled into view (a boolean attribute). */
  autorun?: boolean | '';
  /** One column of essentials (a boolean attribute). */
  compact?: boolean | '';
  theme?: 'light' | 'dark' | 'auto';
  /** The language of everything the widget says: `en`, `zh-CN` or `id` (default: the nearest `lang` of the host page, then the browser's language). */
  lang?: 'en' | 'zh-CN' | 'id' | (string & {});
  [parameter: string]: string | number | boolean | undefined;
}

// Also short notes such as 'link copied'.
export type LooplabStatus = 'idle' | 'loading' | 'ready' | 'running' | 'done' | 'stopped' | `error: ${string}` | (string & {});

export interface LooplabEventMap {
  'looplab-ready': CustomEvent<{ experiment: string; parameters: string[] }>;
  'looplab-status': CustomEvent<{ status: LooplabStatus }>;
  'looplab-progress': CustomEvent<{ fraction: number; message: string }>;
  'looplab-result': CustomEvent<{ result: Result }>;
  'looplab-error': CustomEvent<{ message: string }>;
}

export declare class LooplabExperiment extends HTMLElement {
  readonly status: LooplabStatus;
  readonly result: Result | null;
  readonly describe: Description | null;
  readonly experiments: ExperimentInfo[];
  run(): Promise<void>;
  stop(): void;
  /** The full page's URL for this exact configuration. */
  link(): string;
  addEventListener<K extends keyof LooplabEventMap>(type: K, listener: (this: LooplabExperiment, ev: LooplabEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

/** Defines the element under `tag` (default `looplab-experiment`) unless that tag is taken. */
export declare function define(tag?: string): void;

/** Replaces where widgets get their worker client and styles (the offline single file uses it). Call before the first widget connects. */
export declare function configure(options: {
  createClient?: () => LooplabClient;
  styles?: string[];
  inlineCss?: string | null;
  linkBase?: string;
}): void;

export type { Config };
