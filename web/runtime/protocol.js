// The messages between the page (client.js) and the module worker (worker.js): the one place their
// type names are defined, imported by both sides.
//
// Every request carries an id chosen by the page; every answer names the id it answers.
//   page -> worker  {type: INIT, module, catalogs}      first: the compiled WebAssembly.Module to
//                                                       instantiate (one compile per page), or null:
//                                                       the worker fetches and compiles it itself;
//                                                       catalogs: {en: catalog}, the module's language
//                   {type: LIST, id, lang, catalog}     catalog: the catalog of `lang` (describes: the language files)
//                   {type: PING}                        heartbeat: answered at once, also between chunks of a run
//                   {type: VALIDATE | RUN | CANCEL, id, config?}
//                   {type: EXTEND, id, run, seconds}    "Run longer": the finished run `run` (the id of its
//                                                       RUN; the worker keeps the last one) takes more paired
//                                                       timing rounds; answered like a RUN
//   worker -> page  {type: PONG}                        the answer to PING (the worker is alive)
//                   {type: BUSY}                        entering a module call that may take long (a chunk,
//                                                       or the module's start-up before READY):
//                                                       pings wait until it returns (any later message)
//                   {type: READY, environment}          once the module is instantiated
//                   {type: REPLY, id, value}            LIST / VALIDATE
//                   {type: PROGRESS, id, progress}      RUN: new points since the last message
//                   {type: RESULT, id, result}          RUN finished
//                   {type: CANCELLED, id}               RUN stopped by a CANCEL request
//                   {type: ERROR, id, message, i18n?}   a request failed (id null: the module failed to load); i18n: the message as {key, args}
//                   {type: FATAL, id, message, i18n}    the module trapped: this worker is unusable; the page
//                                                       terminates it and starts a fresh one
// A run advances in ~50 ms chunks and yields to the event loop between chunks, so CANCEL (and
// VALIDATE) messages are handled while it runs.

export const REQUEST = Object.freeze({
  INIT: 'init',
  PING: 'ping',
  LIST: 'list',
  VALIDATE: 'validate',
  RUN: 'run',
  CANCEL: 'cancel',
  EXTEND: 'extend',
});

export const ANSWER = Object.freeze({
  PONG: 'pong',
  BUSY: 'busy',
  READY: 'ready',
  REPLY: 'reply',
  PROGRESS: 'progress',
  RESULT: 'result',
  CANCELLED: 'cancelled',
  ERROR: 'error',
  FATAL: 'fatal',
});
