// The page's side of the worker protocol (protocol.js): one promise per request id, progress as
// callbacks, cancel by id, and every pending request settled when the worker dies or is terminated.
//
//   const client = new LooplabClient(new URL('./worker.js', import.meta.url));
//   const env = await client.ready;
//   const run = client.run(config, (progress) => plot(progress.series));
//   run.cancel();                       // resolves run.done with {cancelled: true}
//   const { result, cancelled } = await run.done;
//   client.onRestart = (err) => show(err.message);   // the module crashed; a fresh worker is running
//   client.terminate();                 // rejects everything pending (isTerminated(err) is true)
//
// Faults: if the module traps (the worker reports FATAL) or the worker raises an uncaught error
// after it was ready, every pending request is rejected with an Error saying what happened, the
// worker is terminated and a fresh one started, so the next request works. A worker that never
// became ready (missing build, syntax error) is not restarted: that would only fail again.
import { ANSWER, REQUEST } from './protocol.js';

const TERMINATED = 'WorkerTerminated';

/** True for the rejection of a request that was pending when its client was terminated. */
export const isTerminated = (err) => err?.name === TERMINATED;

function terminatedError(reason) {
  const err = new Error(reason);
  err.name = TERMINATED;
  return err;
}

export class LooplabClient {
  constructor(workerUrl) {
    this.workerUrl = workerUrl;
    this.nextId = 1;
    this.pending = new Map();  // id -> {resolve, reject, onProgress}
    this.restarts = 0;
    this.terminated = false;
    this.onRestart = null;
    this.start();
  }

  start() {
    this.wasReady = false;
    this.worker = new Worker(this.workerUrl, { type: 'module' });
    this.ready = new Promise((resolve, reject) => { this.readyHandlers = { resolve, reject }; });
    if (this.restarts > 0) this.ready.catch(() => {});  // nobody awaits a restarted worker's ready
    this.worker.onmessage = ({ data }) => this.dispatch(data);
    this.worker.onerror = (e) => {
      e.preventDefault();
      if (this.wasReady) this.restart(`the worker failed (${e.message || 'uncaught error'})`);
      else this.failAll(new Error(`worker failed: ${e.message || 'could not start worker.js'}`));
    };
  }

  /** Stops the worker for good: every pending request (and `ready`, if still pending) is rejected. */
  terminate(reason = 'the worker was terminated') {
    if (this.terminated) return;
    this.terminated = true;
    this.stopWorker();
    this.failAll(terminatedError(reason));
  }

  stopWorker() {
    this.worker.onmessage = null;
    this.worker.onerror = null;
    this.worker.terminate();
  }

  /** Rejects everything pending with `what`, replaces the worker, then tells onRestart. */
  restart(what) {
    const err = new Error(`${what}; a fresh worker was started, so you can run again`);
    err.name = 'WorkerCrash';
    this.stopWorker();
    this.failAll(err);
    this.restarts += 1;
    this.start();
    this.onRestart?.(err);
  }

  dispatch(msg) {
    if (msg.type === ANSWER.READY) { this.wasReady = true; this.readyHandlers.resolve(msg.environment); return; }
    if (msg.type === ANSWER.ERROR && msg.id === null) { this.failAll(new Error(msg.message)); return; }
    if (msg.type === ANSWER.FATAL) { this.restart(msg.message); return; }
    const p = this.pending.get(msg.id);
    if (!p) return;                                    // a late message for a settled request
    switch (msg.type) {
      case ANSWER.PROGRESS: p.onProgress?.(msg.progress); break;
      case ANSWER.REPLY: this.settle(msg.id).resolve(msg.value); break;
      case ANSWER.RESULT: this.settle(msg.id).resolve({ result: msg.result, cancelled: false }); break;
      case ANSWER.CANCELLED: this.settle(msg.id).resolve({ result: null, cancelled: true }); break;
      case ANSWER.ERROR: this.settle(msg.id).reject(new Error(msg.message)); break;
      default: break;
    }
  }

  settle(id) {
    const p = this.pending.get(id);
    this.pending.delete(id);
    return p;
  }

  failAll(err) {
    this.readyHandlers.reject(err);
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  request(msg, onProgress) {
    const id = this.nextId++;
    if (this.terminated) return { id, promise: Promise.reject(terminatedError('the worker was terminated')) };
    const promise = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject, onProgress }));
    this.worker.postMessage({ ...msg, id });
    return { id, promise };
  }

  list() { return this.request({ type: REQUEST.LIST }).promise; }
  describe(experiment) { return this.request({ type: REQUEST.DESCRIBE, experiment }).promise; }
  /** Resolves with the resolved config, rejects with the core's one-line message. */
  validate(config) { return this.request({ type: REQUEST.VALIDATE, config: JSON.stringify(config) }).promise; }

  /** Starts a run; returns {done: Promise<{result, cancelled}>, cancel()}. */
  run(config, onProgress) {
    const { id, promise } = this.request({ type: REQUEST.RUN, config: JSON.stringify(config) }, onProgress);
    const worker = this.worker;                        // a cancel after a restart goes nowhere
    return { done: promise, cancel: () => { if (!this.terminated) worker.postMessage({ type: REQUEST.CANCEL, id }); } };
  }
}
