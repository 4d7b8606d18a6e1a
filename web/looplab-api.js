// The JavaScript API without the widget (`import … from 'looplab/api'`, dist/looplab-api.js): the
// experiments' list, describe, validate and run, in a module worker, from any page or framework.
//
//   import { connect, isTerminated } from 'looplab/api';
//   const looplab = connect();                    // starts the worker; the wasm compiles once per page
//   await looplab.ready;                          // the environment (build, clock) once the module runs
//   const list = await looplab.list();            // [{id, title, question}, ...]
//   const d = await looplab.describe('standardization');
//   await looplab.validate({ experiment: 'standardization', lr_raw: -1 });   // rejects: "lr_raw: must be …"
//   const run = looplab.run({ experiment: 'standardization' }, (p) => console.log(p.fraction, p.message));
//   setTimeout(() => run.cancel(), 5000);         // run.done resolves with {result: null, cancelled: true}
//   const { result, cancelled } = await run.done;
//   looplab.terminate();                          // ends the worker; pending requests reject (isTerminated)
//
// Types: types/api.d.ts. The worker and the wasm are found next to this module (runtime/connect.js).
import { LooplabClient, isTerminated, terminatedError } from './runtime/client.js';
import { compileModule, connect, hasSavedRun, languageFile, onModuleDownload, savedRun } from './runtime/connect.js';

export { LooplabClient, compileModule, connect, hasSavedRun, isTerminated, languageFile, onModuleDownload, savedRun, terminatedError };
