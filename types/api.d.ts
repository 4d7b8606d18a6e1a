// Types for `looplab/api` (dist/looplab-api.js, from web/looplab-api.js): the experiments' list,
// describe, validate and run, answered by a module worker that runs the WebAssembly module.
// The JSON shapes are the core's (docs/design.md, "The JSON boundary").

/** `{experiment: '<id>', <parameter>: <value>, ...}`; parameters left out take their defaults. */
export interface Config {
  experiment: string;
  [parameter: string]: unknown;
}

export interface ExperimentInfo { id: string; title: string; question: string }

/** One parameter declaration: it is also a widget attribute and a URL parameter of the same name. */
export interface ParameterDeclaration {
  name: string;
  type: 'number' | 'integer' | 'choice' | 'bool';
  default: number | string | boolean;
  help: string;
  [detail: string]: unknown;   // range ends, choices, log-scale hint, only_when
}

/** describe(experiment, lang): every text in `lang`, from the catalogs. */
export interface Description extends ExperimentInfo {
  explanation: { intro: string; try: string; mechanism: string };
  parameters: ParameterDeclaration[];
  plots: Array<Record<string, unknown>>;
  /** `original`: the figure as the thread wrote it, in a language other than English. */
  quoted: Array<{ label: string; value: string; source: string; original?: string }>;
  /** Each looplab term and what it is in the seeds' TensorFlow world. */
  tensorflow: Array<{ looplab: string; tensorflow: string }>;
  takes_csv: boolean;
}

/** result_contract.hpp's environment(): where a run's times were measured. */
export interface Environment {
  build: string; simd: boolean; simd_kind: string; compiler: string; eigen: string; eigen_vectorized: boolean; clock_resolution_ns: number;
}

/** One conclusion a result states, and the numbers its verdict is computed from (comparison.hpp). */
export interface Comparison {
  id: string;
  a: { label: string; value: number; spread: number };
  b: { label: string; value: number; spread: number };
  quantity: string; unit: string; better: string; verdict: string;
  [detail: string]: unknown;
}

/** Sent during a run: `series` holds only the points added since the previous progress. */
export interface Progress {
  done: boolean;
  fraction: number;
  message: string;
  /** The same message as {key, args}, for other languages (core/i18n). */
  i18n?: Message;
  series: Record<string, Record<string, Array<number | null>>>;
}

export interface Result {
  experiment: string;
  config: Config;
  environment: Environment;
  /** null: a gap in a column (a non-finite loss). */
  series: Record<string, Record<string, Array<number | null>>>;
  runs: Array<Record<string, unknown>>;
  summary: {
    headline: Array<{ label: string; value: string; note?: string }>; reading: string;
    /** One sentence answering the experiment's question from this run. */
    answer: string;
    comparisons: Comparison[];
    beside_quoted?: Array<{ label: string; quoted: string; measured: string; why: string }>;
    /**
     * The same sentences as messages, for other languages (core/i18n): every experiment. `values`: the
     * summary's text values (overhead's `fit`, `measured_where`); `cells`: the text cells of `runs` and
     * the extra tables by table and row index (retracing's `reason`, matrix's `cell`, `model`, `data`).
     */
    messages?: {
      headline: Array<Record<string, Message>>; reading: Message; answer: Message; beside_quoted?: Array<Record<string, Message>>;
      values?: Record<string, Message>; cells?: Record<string, Record<string, Record<string, Message>>>;
    };
    [key: string]: unknown;
  };
}

/** A catalog key and its arguments (numbers, strings or messages), rendered by the page in the reader's language. */
export interface Message { key: string; args: Record<string, unknown> }

export interface Run {
  /** Resolves when the run ends: `{result, cancelled: false}`, or `{result: null, cancelled: true}` after cancel(). Rejects with the core's one-line message for a bad config. */
  done: Promise<{ result: Result; cancelled: false } | { result: null; cancelled: true }>;
  cancel(): void;
}

export declare class LooplabClient {
  /**
   * `module`: returns the compiled module every worker of this client instantiates (see compileModule).
   * `languageFile`: a language's file (see languageFile): the texts, the list and every describe
   * come from it (the module has no describe), and the worker needs its English catalog.
   */
  constructor(workerUrl: string | URL, options: {
    module?: (() => Promise<WebAssembly.Module>) | null;
    languageFile: (lang: string) => Promise<LanguageFile | null>;
    savedRun?: (experiment: string) => Promise<Result | null>;
  });
  /** Resolves once the module runs in the worker; rejects with one line when it cannot start. */
  readonly ready: Promise<Environment>;
  /** Titles and questions in `lang` ('en' by default; 'zh-CN', 'id'). */
  list(lang?: string): Promise<ExperimentInfo[]>;
  /** Parameters, plots and every text in `lang` ('en' by default; 'zh-CN', 'id'). */
  describe(experiment: string, lang?: string): Promise<Description>;
  /** The saved run of `experiment` (see savedRun), or null. */
  savedRun(experiment: string): Promise<(Result & { saved: { where: string; when: string } }) | null>;
  /** The message catalog of `lang`; rejects when it cannot be loaded. */
  catalog(lang: string): Promise<Catalog>;
  /** Resolves with the config, every default filled in; rejects with `name: must be …, got …` (the Error's `i18n`: the same as a Message). */
  validate(config: Config): Promise<Config>;
  run(config: Config, onProgress?: (progress: Progress) => void): Run;
  /** Called after the worker crashed, died or hung and a fresh one was started (pending requests were rejected). */
  onRestart: ((error: Error) => void) | null;
  /** Ends the worker; everything pending rejects with an error for which isTerminated() is true. */
  terminate(reason?: string): void;
}

/** A client whose worker and wasm are the ones next to this package's scripts; the wasm compiles once per page. */
export declare function connect(): LooplabClient;
/** Calls `listener` as the WebAssembly module's bytes arrive (total 0: the size is unknown); returns an unsubscribe. */
export declare function onModuleDownload(listener: (progress: { got: number; total: number }) => void): () => void;
/** The page's one compiled module (fetched and compiled on the first call). */
export declare function compileModule(): Promise<WebAssembly.Module>;
/** A message catalog: {key: template} (core/i18n/<lang>.json). */
export type Catalog = Record<string, string>;
/**
 * Everything looplab says in one language, written at build time (dist/lang/<lang>.json). Its catalog
 * lacks the texts its describes hold (the parameters' help, tf.*, quoted.*, exp.<id>.intro|try|mechanism):
 * a client answers describe() from the file's describes (the module has none).
 */
export interface LanguageFile { catalog: Catalog; list: ExperimentInfo[]; describe: Record<string, Description> }
/** The language file of `lang` next to this package's scripts, fetched once per page; null when there is none. */
export declare function languageFile(lang: string): Promise<LanguageFile | null>;
/** True when experiment `id` has a saved run next to this package's scripts (every experiment the build knows). */
export declare function hasSavedRun(id: string): boolean;
/**
 * The saved run of experiment `id`: its default configuration's result, measured when the package was
 * built (web/tools/saved-runs.mjs; `saved`: where and when), or null. A page shows it labelled as saved, never as measured here.
 */
export declare function savedRun(id: string): Promise<(Result & { saved: { where: string; when: string } }) | null>;
/** An Error for which isTerminated() is true: what a terminated client's requests reject with. */
export declare function terminatedError(reason: string): Error;
/** True for the rejection of a request that was pending when its client was terminated. */
export declare function isTerminated(error: unknown): boolean;
