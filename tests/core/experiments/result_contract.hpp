// tests/core/experiments/result_contract.hpp — what a result and a progress event may hold, in one
// place, and the functions that check them.
//
// Every run (run.hpp) returns the same envelope; the CLI prints it, the page and the widget draw
// it, the golden check compares it. A result holds exactly the keys of kResultKeys, plus the extra
// tables kResultTables declares for its experiment; nothing else.
//
//   const json result = json::parse(run->result_json());
//   for (const std::string& v : check_result(result)) std::cerr << v << "\n";   // none when ok
//
// A progress event (ExperimentRun::progress_json) holds exactly {done, fraction, message, series};
// check_progress checks one event, check_progress_sequence a run's events against its result.
#pragma once

#include <string>
#include <vector>

#include "looplab/base/json.hpp"

namespace looplab {

// One top-level key of the contract: its name, its JSON type and what it holds.
struct ContractKey {
  const char* key;
  const char* type;  // "string", "object", "array", "boolean", "number"
  const char* holds;
};

// The keys every result has, in this order.
inline constexpr ContractKey kResultKeys[] = {
    {"experiment", "string", "the experiment's id"},
    {"config", "object",
     "the resolved config: every declared parameter with its value, and \"experiment\"; an "
     "attached CSV appears as {name, x, y, rows, bytes}, never its text"},
    {"environment", "object",
     "environment(): build, simd, simd_kind, compiler, eigen, eigen_vectorized, "
     "clock_resolution_ns"},
    {"series", "object",
     "named series for the plots and the CSV download: {name: {column: [number or null]}}, the "
     "columns of one series of equal length (null: a gap, e.g. a non-finite loss)"},
    {"runs", "array",
     "one object per mode, variant, k, traced call or cell: its timings and final metrics"},
    {"summary", "object",
     "\"headline\": [{label, value, note?}] (strings), \"reading\": non-empty sentences, "
     "\"comparisons\": [{id, a: {label, value, spread}, b: {…}, quantity, unit, better, verdict}] "
     "(comparison.hpp; every conclusion the sentences state, its verdict computed from values and "
     "spreads), \"answer\": one sentence answering the experiment's question from this run, "
     "\"beside_quoted\" (optional): [{label, quoted, measured, why}] a seed's figure beside "
     "this run's and why the scale differs, \"messages\" (optional): {headline, reading, answer, "
     "beside_quoted?, values?, cells?} the same sentences as messages {key, args} (base/i18n.hpp) "
     "that render to them in English and in every catalog language (--lang, the page's ?lang=), "
     "\"values\" {field: message} the summary's text values, \"cells\" {table: {row index: "
     "{field: message}}} the text cells of runs and the extra tables (results.hpp: "
     "text_messages), and the experiment's own headline numbers"},
};

// Experiment-specific extensions: an extra top-level array of records that a result of that
// experiment (and only of that experiment) holds. The page and the widget show every extra array
// of records folded under a <details> ("All 40 calls"), so these stay top-level keys rather than
// moving under runs, series or summary, where they would be drawn differently.
struct ResultTable {
  const char* experiment;
  const char* key;
  const char* holds;
};
inline constexpr ResultTable kResultTables[] = {
    {"overhead", "points",
     "every (N, mode) measurement in order: {n, mode, us_per_step, steps_per_chunk, steps, "
     "diverged}; the page appends js_per_call's"},
    {"optimizers", "ladder",
     "a row per rung of the preprocessing ladder and optimizer, rungs in order: {x, optimizer "
     "(messages), condition_number, exact_iterations (double precision; null beyond the limit), "
     "iterations_to_tolerance (float32; null when not reached), iterations_run, lr, wall_ms}"},
    {"matrix", "layers",
     "each model's layers as Keras's model.summary() prints them, on its smallest data: {model "
     "(message), layer, output_shape (\"(None, steps, channels)\"), parameters}"},
    {"retracing", "calls",
     "every call of the script in order: {call, rows, training, traced, reason (null when "
     "replayed), ms (a traced call timed alone; a replay, its chunk's ms per replay; null for a "
     "replay with no replayed neighbour, never timed alone)}"},
};

// The keys every progress event has, in this order; optionally also "i18n", the message as
// {key, args} (base/i18n.hpp), rendering in English as "message".
inline constexpr ContractKey kProgressKeys[] = {
    {"done", "boolean", "true once the run is complete"},
    {"fraction", "number", "0..1, non-decreasing; below 1 until done, exactly 1 when done"},
    {"message", "string", "what the run is doing now; \"done\" when done"},
    {"series", "object",
     "the points each series gained since the previous event: {name: {column: [number or null]}}, "
     "columns of equal length; names and columns as in the result's series"},
};

// The violations of the contract in a result, one line each ("runs: must be an array, got
// object"); empty when it complies. Checks the keys (none missing, none extra), their types, the
// config against the experiment's declared parameters, the series columns, the summary's headline
// and reading, and each extra table.
std::vector<std::string> check_result(const json& result);

// The violations in one progress event.
std::vector<std::string> check_progress(const json& event);

// The violations in a run's progress events taken in order, checked against its result: each event
// complies, fraction never decreases, only the last is done, and every series' streamed points,
// concatenated, are the result's series of that name.
std::vector<std::string> check_progress_sequence(const std::vector<json>& events,
                                                 const json& result);

}  // namespace looplab
