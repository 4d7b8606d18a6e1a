// matrix.cpp — seed thread 001: is there one best configuration?
//
// Model size × data size × mode, as seed 001's benchmark. models=mlp: one-hidden-layer MLPs (so
// the hand-written reference covers every cell), Adam, mse:
//   small   8 inputs → Dense(16, tanh) → Dense(1)        161 parameters
//   medium 32 inputs → Dense(64, tanh) → Dense(1)      2,177 parameters
//   large 128 inputs → Dense(256, tanh) → Dense(1)    33,281 parameters
// Data size is the rows per step (seed 001 grew the data per batch, not the batch count): one
// batch of rows_small / rows_medium / rows_large rows of N(0, 1) inputs and targets, reused every
// step as the seed's benchmark reused one batch. models=seed001: the seed's own Conv1D models on
// its own data, `sequences` sequences of 140 / 1,400 / 14,000 steps × 30 channels with 0/1
// targets, binary cross-entropy from the logits, filters divided by channel_divisor and lengths
// and kernels by length_divisor (conv_net.hpp), the reference their hand-written loop
// (conv_reference.hpp), and the large model not on the small data (its first kernel is longer, as
// in the seed, which skipped that cell). In each cell the four modes (eager, traced, compiled,
// reference) take turns in `repeats` paired rounds of a chunk of steps (rounds.hpp, paired.hpp);
// the seed-001 percentages compare the modes' medians per cell. Then cells with an open verdict are
// built again, one at a time, and take more rounds in turn, `repeats` a visit.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "looplab/base/i18n.hpp"
#include "looplab/experiments/common_params.hpp"
#include "looplab/experiments/comparison.hpp"
#include "looplab/experiments/experiment.hpp"
#include "looplab/experiments/plots.hpp"
#include "looplab/experiments/run.hpp"
#include "looplab/experiments/timing.hpp"
#include "looplab/train/conv_net.hpp"
#include "looplab/train/session.hpp"

namespace looplab {
namespace {

struct ModelSize {
  const char* name;
  int inputs, hidden;
};
constexpr ModelSize kModels[] = {{"small", 8, 16}, {"medium", 32, 64}, {"large", 128, 256}};
const char* const kDataNames[] = {"small", "medium", "large"};
const char* const kMatrixModes[] = {"eager", "traced", "compiled", "reference"};
constexpr int kMatrixModeCount = 4;
constexpr int kEager = 0, kTraced = 1, kCompiled = 2, kReference = 3;  // into kMatrixModes
constexpr double kMatrixMemoryLimitBytes = 256.0 * 1024 * 1024;
// Seed 001's models: half the WebAssembly module's 1 GB maximum (wasm/CMakeLists.txt).
constexpr double kSeedMemoryLimitBytes = 512.0 * 1024 * 1024;

bool seed_models(const Params& p) { return p.choice("models") == "seed001"; }

// A seed-001 cell's model at this run's scale, or nullopt where the model does not fit the data
// (the large model on the small data).
std::optional<ConvNetSpec> seed_cell(const Params& p, int model, int data) {
  return seed001_model_if_it_fits(kModels[model].name, kSeed001Lengths[data],
                                  static_cast<int>(p.integer("channel_divisor")),
                                  static_cast<int>(p.integer("length_divisor")));
}

// The largest seed-001 cell: its batch, and per mode (four alive for the paired rounds) every
// activation, window and gradient of a step (step_floats_per_sequence; the hand-written loop's
// reference_floats_per_sequence), and per mode its copies of the parameters.
double seed_estimated_bytes(const Params& p) {
  double most = 0.0;
  for (int m = 0; m < 3; ++m)
    for (int d = 0; d < 3; ++d)
      if (const auto spec = seed_cell(p, m, d))
        most = std::max(most, 4.0 * (static_cast<double>(p.integer("sequences")) *
                                         (3.0 * step_floats_per_sequence(*spec) +
                                          reference_floats_per_sequence(*spec)) +
                                     4.0 * kParameterCopiesPerMode *
                                         static_cast<double>(parameter_count(*spec))));
  return most;
}

long long parameter_count(const ModelSize& m) {
  return 1LL * m.inputs * m.hidden + m.hidden + m.hidden + 1;
}

// The largest cell: its data plus the four modes' trainers alive at once for the paired rounds,
// about 25 [rows x hidden] buffers (an eager step keeps about ten, the traced and compiled arenas
// about five each).
double estimated_bytes(long long rows) {
  const ModelSize& m = kModels[2];
  return 4.0 * static_cast<double>(rows) * (m.inputs + 1 + 25.0 * m.hidden);
}

json size_message(const char* size) { return msg(std::string("mx.size_") + size); }

// "small (8→16→1)"
json model_label(const ModelSize& m) {
  return msg("mx.model_label",
             {{"size", size_message(m.name)}, {"inputs", m.inputs}, {"hidden", m.hidden}});
}

struct Cell {
  int model = 0, data = 0;
  long long rows = 0;               // mlp: rows per step; seed001: sequences per step
  std::optional<ConvNetSpec> conv;  // seed001: the cell's model at this run's scale
  PairedRounds* rounds = nullptr;   // a side per mode
  const std::vector<double>& rounds_us(int mode) const {
    return rounds->rounds_us(static_cast<std::size_t>(mode));
  }
  double us(int mode) const { return median(rounds_us(mode)); }  // over its rounds
  bool diverged = false;
};

class MatrixRun final : public ChunkedRun {
 public:
  explicit MatrixRun(const Params& p) : ChunkedRun("matrix", p) {
    warm_up_engines();
    const bool seed = seed_models(p);
    const long long rows[] = {seed ? p.integer("sequences") : p.integer("rows_small"),
                              seed ? p.integer("sequences") : p.integer("rows_medium"),
                              seed ? p.integer("sequences") : p.integer("rows_large")};
    for (int m = 0; m < 3; ++m)
      for (int d = 0; d < 3; ++d) {
        Cell c;
        c.model = m;
        c.data = d;
        c.rows = rows[d];
        if (seed && !(c.conv = seed_cell(p, m, d))) continue;
        cells_.push_back(c);
      }
    for (Cell& c : cells_) {
      std::vector<TimedSide> sides;
      for (int mode = 0; mode < kMatrixModeCount; ++mode)
        sides.push_back({kMatrixModes[mode], [] { return true; },
                         [this, &c, mode](long long steps) { return run_steps(c, mode, steps); },
                         [this, &c, mode](long long) { set_up(c, mode); }});
      const std::string suffix =
          std::string("_") + kModels[c.model].name + "_model_" + kDataNames[c.data] + "_data";
      c.rounds = &add_rounds(
          std::move(sides), {p.number("chunk_ms"), 1, false},
          [suffix](std::string_view id) { return id.ends_with(suffix); },
          static_cast<std::size_t>(p.integer("repeats")));
    }
  }

  bool finished() const override { return next_ >= cells_.size(); }

 private:
  double fraction() const override {
    const double rounds =
        next_ < cells_.size() ? static_cast<double>(cells_[next_].rounds->rounds()) : 0.0;
    return (static_cast<double>(next_) + std::min(rounds / rounds_per_cell(), 1.0)) /
           static_cast<double>(cells_.size());
  }

  int rounds_per_cell() const { return static_cast<int>(params().integer("repeats")); }

  json progress_message() const override {
    const Cell& c = cells_[std::min(next_, cells_.size() - 1)];
    return msg("mx.progress", {{"mode", kMatrixModes[c.rounds->side()]},
                               {"model", size_message(kModels[c.model].name)},
                               {"data", size_message(kDataNames[c.data])}});
  }

  json runs() const override {
    json runs = json::array();
    for (const Cell& c : cells_) runs.push_back(cell_json(c));
    return runs;
  }

  // One mode's turn in the current cell's paired rounds; after `repeats` counted rounds the next
  // cell.
  void work_one() override {
    Cell& c = cells_[next_];
    c.rounds->turn();
    if (static_cast<int>(c.rounds->rounds()) >= rounds_per_cell() && !c.rounds->mid_round()) {
      for (auto& session : sessions_) session.reset();
      session_cell_ = nullptr;
      ++next_;
    }
  }

  long long run_steps(Cell& c, int mode, long long steps) {
    TrainerSession& session = *sessions_[static_cast<std::size_t>(mode)];
    for (long long i = 0; i < steps; ++i)
      if (!std::isfinite(session.train_staged())) c.diverged = true;
    return steps;
  }

  // The traced vs eager and compiled vs traced comparisons of every cell: what the rounds decide.
  std::vector<Comparison> comparisons() const override {
    std::vector<Comparison> all = comparisons(kTraced, kEager),
                            more = comparisons(kCompiled, kTraced);
    all.insert(all.end(), more.begin(), more.end());
    return all;
  }

  // Before a mode's turn, untimed: its session for this cell (the model from the seed, the batch
  // staged once: every step reads it in place). One cell's sessions are alive at a time: another
  // cell's are freed, and the cell's data made, first.
  void set_up(Cell& c, int mode) {
    if (session_cell_ != &c) {
      for (auto& session : sessions_) session.reset();
      session_cell_ = &c;
      const ModelSize& m = kModels[c.model];
      Rng rng(static_cast<std::uint64_t>(params().integer("seed")));
      const int rows = static_cast<int>(c.rows) * (c.conv ? c.conv->length : 1);
      x_ = Tensor({rows, c.conv ? c.conv->channels : m.inputs});
      y_ = Tensor({static_cast<int>(c.rows), 1});
      for (std::size_t i = 0; i < x_.size(); ++i) x_[i] = static_cast<float>(rng.normal());
      for (std::size_t i = 0; i < y_.size(); ++i)  // the seed's: N(0, 1) inputs, 0/1 targets
        y_[i] = c.conv ? static_cast<float>(rng.uniform(0.0, 1.0) < 0.5)
                       : static_cast<float>(rng.normal());
    }
    auto& session = sessions_[static_cast<std::size_t>(mode)];
    if (session) return;
    const ModelSize& m = kModels[c.model];
    SessionConfig sc;
    sc.mode = parse_mode(kMatrixModes[mode]);
    sc.inputs = m.inputs;
    sc.hidden = m.hidden;
    sc.conv = c.conv;
    sc.batch = static_cast<int>(c.rows);
    sc.lr = params().number("lr");
    sc.seed = static_cast<std::uint64_t>(params().integer("seed"));
    session = std::make_unique<TrainerSession>(sc);
    std::copy(x_.data(), x_.data() + x_.size(), session->staged_x());
    std::copy(y_.data(), y_.data() + y_.size(), session->staged_y());
  }

  static Measure measure(const Cell& c, int mode) {
    return paired_side(kMatrixModes[mode], c.rounds_us(mode));
  }

  // The cell's fastest mode when it is decided faster than each other (paired rounds); -1 when
  // against one of them the interval says the same or not enough evidence (no measurable winner).
  int fastest(const Cell& c) const {
    int best = 0;
    for (int mode = 1; mode < kMatrixModeCount; ++mode)
      if (c.us(mode) < c.us(best)) best = mode;
    for (int other = 0; other < kMatrixModeCount; ++other)
      if (other != best && !beats(c, best, other)) return -1;
    return best;
  }

  // Mode a decided faster than mode b in cell c.
  static bool beats(const Cell& c, int a, int b) {
    return compare("", measure(c, a), measure(c, b), Quantity::Time, "").verdict == Verdict::A;
  }

  static std::string cell_name(const Cell& c) {
    return std::string(kModels[c.model].name) + " model × " + kDataNames[c.data] + " data";
  }

  json cell_json(const Cell& c) const {
    const ModelSize& m = kModels[c.model];
    const int best = fastest(c);
    return object(
        {{"cell", msg("mx.cell", {{"model", size_message(m.name)},
                                  {"data", size_message(kDataNames[c.data])}})},
         {"model", c.conv ? seed_model_label(c) : model_label(m)},
         {"data", c.conv ? seed_data_label(c)
                         : msg("mx.data_label",
                               {{"size", size_message(kDataNames[c.data])}, {"rows", c.rows}})},
         {"parameters", c.conv ? parameter_count(*c.conv) : parameter_count(m)},
         {"rows", c.rows},
         {"eager_us", c.us(kEager)},
         {"traced_us", c.us(kTraced)},
         {"compiled_us", c.us(kCompiled)},
         {"reference_us", c.us(kReference)},
         {"eager_spread_us", half_iqr(c.rounds_us(kEager))},
         {"traced_spread_us", half_iqr(c.rounds_us(kTraced))},
         {"compiled_spread_us", half_iqr(c.rounds_us(kCompiled))},
         {"reference_spread_us", half_iqr(c.rounds_us(kReference))},
         {"rounds", static_cast<long long>(c.rounds_us(kEager).size())},
         {"fastest", best < 0 ? json(nullptr) : json(kMatrixModes[best])},
         {"traced_vs_eager_pct", percent_faster(c.us(kTraced), c.us(kEager))},
         {"compiled_vs_traced_pct", percent_faster(c.us(kCompiled), c.us(kTraced))},
         {"reference_vs_traced_pct", percent_faster(c.us(kReference), c.us(kTraced))},
         {"diverged", c.diverged}});
  }

  // The mode measurably faster than each of `modes` (indices into kMatrixModes) in every cell
  // (nullopt if none).
  std::optional<int> wins_every_cell(std::initializer_list<int> all_modes) const {
    const std::vector<int> modes(all_modes);
    for (int mode : modes) {
      bool all = true;
      for (const Cell& c : cells_)
        for (int other : modes)
          if (other != mode && !beats(c, mode, other)) all = false;
      if (all) return mode;
    }
    return std::nullopt;
  }

  // a vs b in every cell: "<a>_vs_<b>_<model>_model_<data>_data", a named with the cell.
  std::vector<Comparison> comparisons(int a, int b) const {
    std::vector<Comparison> out;
    for (const Cell& c : cells_)
      out.push_back(compare(
          std::string(kMatrixModes[a]) + "_vs_" + kMatrixModes[b] + "_" + kModels[c.model].name +
              "_model_" + kDataNames[c.data] + "_data",
          paired_side(std::string(kMatrixModes[a]) + " (" + cell_name(c) + ")", c.rounds_us(a)),
          measure(c, b), Quantity::Time, "µs per step"));
    return out;
  }

  // How a's comparisons with b came out: decided faster, slower, neither (the same within ±5%, or
  // not enough evidence); and the range of seed 001's percentages.
  struct Tally {
    int faster = 0, slower = 0, within = 0;
    double lo = 1e300, hi = -1e300;
  };
  Tally tally(const std::vector<Comparison>& cmp, int a, int b) const {
    Tally t;
    for (const Comparison& c : cmp) {
      t.faster += c.verdict == Verdict::A;
      t.slower += c.verdict == Verdict::B;
    }
    t.within = static_cast<int>(cmp.size()) - t.faster - t.slower;
    for (const Cell& c : cells_) {
      const double pct = percent_faster(c.us(a), c.us(b));
      t.lo = std::min(t.lo, pct);
      t.hi = std::max(t.hi, pct);
    }
    return t;
  }

  // Every branch takes the same arguments.
  json answer(const std::optional<int>& all, const json& wins, int ties) const {
    int winners = 0;
    for (const char* m : kMatrixModes) winners += wins[m].get<int>() > 0;
    const json counts = msg("mx.counts", {{"e", wins["eager"]},
                                          {"t", wins["traced"]},
                                          {"c", wins["compiled"]},
                                          {"r", wins["reference"]},
                                          {"ties", ties}});
    return msg(
        all            ? "mx.a_all"
        : winners >= 2 ? "mx.a_depends"
                       : "mx.a_none",
        {{"mode", all ? kMatrixModes[*all] : ""}, {"cells", cells_.size()}, {"counts", counts}});
  }

  json summary() const override {
    json s;
    const auto all = wins_every_cell({kEager, kTraced, kCompiled, kReference});
    const auto framework = wins_every_cell({kEager, kTraced});
    s["wins_every_cell"] = all ? json(kMatrixModes[*all]) : json(nullptr);
    s["wins_every_cell_eager_vs_traced"] =
        framework ? json(kMatrixModes[*framework]) : json(nullptr);
    json wins = object({{"eager", 0}, {"traced", 0}, {"compiled", 0}, {"reference", 0}});
    int ties = 0;
    bool diverged = false;
    for (const Cell& c : cells_) {
      const int best = fastest(c);
      if (best < 0)
        ++ties;
      else
        wins[kMatrixModes[best]] = wins[kMatrixModes[best]].get<int>() + 1;
      diverged = diverged || c.diverged;
    }
    const std::vector<Comparison> cmp = comparisons(kTraced, kEager),
                                  ccmp = comparisons(kCompiled, kTraced);
    const Tally te = tally(cmp, kTraced, kEager), ct = tally(ccmp, kCompiled, kTraced);
    const int traced_faster = te.faster, eager_faster = te.slower, within = te.within;
    const double lo = te.lo, hi = te.hi;
    s["cells_won"] = wins;
    s["cells_without_a_measurable_winner"] = ties;
    s["traced_vs_eager_pct_range"] = object({{"min", lo}, {"max", hi}});
    s["compiled_vs_traced_pct_range"] = object({{"min", ct.lo}, {"max", ct.hi}});
    s["percent_formula"] = msg("mx.percent_formula");
    s["diverged"] = diverged;
    std::vector<Comparison> all_cmp = cmp;
    all_cmp.insert(all_cmp.end(), ccmp.begin(), ccmp.end());
    s["comparisons"] = comparisons_json(all_cmp);
    const json all_text =
        msg(all ? "mx.all_wins" : "mx.none_wins", {{"mode", all ? kMatrixModes[*all] : ""}});
    json headline = json::array();
    headline.push_back(card(msg("mx.h_best"), all_text,
                            msg("mx.h_best_note", {{"e", wins["eager"]},
                                                   {"t", wins["traced"]},
                                                   {"c", wins["compiled"]},
                                                   {"r", wins["reference"]},
                                                   {"ties", ties}})));
    headline.push_back(card(msg("mx.h_pct"), msg("mx.h_pct_value", {{"lo", lo}, {"hi", hi}}),
                            msg("mx.h_pct_note", {{"tf", traced_faster},
                                                  {"ef", eager_faster},
                                                  {"w", within},
                                                  {"band", practical_band() * 100.0}})));
    headline.push_back(
        card(msg("mx.h_cpct"), msg("mx.h_pct_value", {{"lo", ct.lo}, {"hi", ct.hi}}),
             msg("mx.h_cpct_note", {{"cf", ct.faster}, {"tf", ct.slower}, {"w", ct.within}})));
    const json reading = msg("mx.reading", {{"cells", cells_.size()},
                                            {"band", practical_band() * 100.0},
                                            {"all", all_text},
                                            {"tf", traced_faster},
                                            {"ef", eager_faster},
                                            {"w", within},
                                            {"lo", lo},
                                            {"hi", hi},
                                            {"compiled", msg("mx.r_compiled", {{"cf", ct.faster},
                                                                               {"tf", ct.slower},
                                                                               {"w", ct.within},
                                                                               {"lo", ct.lo},
                                                                               {"hi", ct.hi}})},
                                            {"div", diverged ? msg("mx.r_diverged") : json("")}});
    if (seed_models(params())) headline.push_back(seed_scale_card());
    summary_messages(s, headline, reading, answer(all, wins, ties));
    return s;
  }

  // "small (seed 001's, 20,521 parameters)"
  static json seed_model_label(const Cell& c) {
    return msg("mx.seed_model_label", {{"size", size_message(kModels[c.model].name)},
                                       {"parameters", parameter_count(*c.conv)}});
  }
  // "medium (8 × 140 steps × 30 channels)"
  static json seed_data_label(const Cell& c) {
    return msg("mx.seed_data_label", {{"size", size_message(kDataNames[c.data])},
                                      {"sequences", c.rows},
                                      {"steps", c.conv->length},
                                      {"channels", c.conv->channels}});
  }
  // Each model's layers as Keras's model.summary() prints them, on the model's smallest data:
  // the layer, its output shape ((None, steps, channels), batch first) and its parameters
  // (result_contract.hpp: the matrix's extra table "layers").
  json tables() const override {
    json rows = json::array();
    const auto row = [&](const json& model, std::string layer, std::string shape, long long n) {
      rows.push_back(object({{"model", model},
                             {"layer", std::move(layer)},
                             {"output_shape", shape},
                             {"parameters", n}}));
    };
    for (const Cell& c : cells_) {
      if (c.data != (c.conv && c.model == 2 ? 1 : 0)) continue;
      if (!c.conv) {  // Dense(hidden, tanh) → Dense(1)
        const ModelSize& m = kModels[c.model];
        const json label = model_label(m);
        row(label, "Dense(" + std::to_string(m.hidden) + ", tanh)",
            "(None, " + std::to_string(m.hidden) + ")", 1LL * m.inputs * m.hidden + m.hidden);
        row(label, "Dense(1)", "(None, 1)", m.hidden + 1);
        continue;
      }
      for (const LayerSummary& l : summarize(*c.conv))
        row(seed_model_label(c), l.layer,
            "(None, " + (l.steps > 0 ? std::to_string(l.steps) + ", " : std::string()) +
                std::to_string(l.channels) + ")",
            l.parameters);
    }
    return object({{"layers", rows}});
  }

  // A headline card: this run's scale against the seed's, both sizes of every model and length.
  json seed_scale_card() const {
    const long long ld = params().integer("length_divisor");
    json args = object({{"sequences", params().integer("sequences")},
                        {"skipped", cells_.size() < 9 ? msg("mx.seed_skipped") : json("")}});
    const char* const keys[] = {"s", "m", "l"};
    for (int m = 0; m < 3; ++m) {
      const int d = m == 2 ? 1 : 0;  // the large model's smallest data is the medium
      const std::string k = keys[m];
      args[k + "_seed"] = parameter_count(seed001_model(kModels[m].name, kSeed001Lengths[d], 1, 1));
      args[k + "_run"] = parameter_count(*seed_cell(params(), m, d));
      args["d" + std::to_string(m)] = (kSeed001Lengths[m] + ld - 1) / ld;
    }
    return card(msg("mx.h_seed"),
                msg("mx.h_seed_value", {{"cd", params().integer("channel_divisor")}, {"ld", ld}}),
                msg("mx.seed_scale", args));
  }

  std::vector<Cell> cells_;
  std::size_t next_ = 0;  // the cell whose rounds are running
  std::unique_ptr<TrainerSession> sessions_[kMatrixModeCount];
  const Cell* session_cell_ = nullptr;  // whose sessions (and data) are alive
  Tensor x_, y_;
};

}  // namespace

Experiment make_matrix_experiment() {
  Experiment e;
  e.id = "matrix";
  const json mlp = "mlp", seed = "seed001";
  e.params = {
      choice("models", "mlp", {"mlp", "seed001"}),
      integer("rows_small", 32, 1, 1'000'000).only_when("models", mlp),
      integer("rows_medium", 256, 1, 1'000'000).only_when("models", mlp),
      integer("rows_large", 2048, 1, 1'000'000).only_when("models", mlp),
      integer("sequences", 8, 1, 256).only_when("models", seed),
      integer("channel_divisor", 8, 1, 64).only_when("models", seed),
      integer("length_divisor", 10, 1, 1000).only_when("models", seed),
      common::adam_lr(),
      common::chunk_ms(5.0),
      common::repeats(9),
      common::max_seconds(),
      common::band(),
      common::seed(),
  };
  const auto heatmap = [](const char* id, const char* value, const char* scale) {
    return heatmap_plot(id, "model", "data", value, scale);
  };
  e.plots =
      json::array({heatmap("traced_vs_eager", "traced_vs_eager_pct", "diverging"),
                   heatmap("compiled_vs_traced", "compiled_vs_traced_pct", "diverging"),
                   heatmap("reference_vs_traced", "reference_vs_traced_pct", "diverging"),
                   heatmap("eager_us", "eager_us", "log"), heatmap("traced_us", "traced_us", "log"),
                   heatmap("compiled_us", "compiled_us", "log"),
                   heatmap("reference_us", "reference_us", "log")});
  e.quoted_sources = {"seed thread 001"};
  e.check = [](const Params& p) {
    if (seed_models(p)) {
      const double bytes = seed_estimated_bytes(p);
      if (bytes > kSeedMemoryLimitBytes) refuse("err.seed_memory", {{"mb", bytes / 1048576.0}});
      return;
    }
    const char* const rows[] = {"rows_small", "rows_medium", "rows_large"};
    for (int i = 1; i < 3; ++i) {
      // Read before refuse(): looking up a name past 10 letters puts a string on the heap.
      const long long lower = p.integer(rows[i - 1]), upper = p.integer(rows[i]);
      if (upper <= lower)
        refuse("err.larger_than",
               {{"name", rows[i]}, {"other", rows[i - 1]}, {"limit", lower}, {"got", upper}});
    }
    const long long l = p.integer("rows_large");
    const double bytes = estimated_bytes(l);
    if (bytes > kMatrixMemoryLimitBytes)
      refuse("err.rows_memory", {{"n", l}, {"mb", bytes / 1048576.0}});
  };
  // Steps are adaptive (each timed chunk lasts chunk_ms): the run is bounded by time, not steps.
  // Its timing takes at least 9 cells × 4 modes × (repeats rounds + about 2 chunks finding the
  // chunk length) × chunk_ms, before any extra round.
  e.estimate = [](const Params& p) {
    Estimate est = seed_models(p)
                       ? Estimate{seed_estimated_bytes(p), 0.0,
                                  "sequences, channel_divisor and length_divisor"}
                       : Estimate{estimated_bytes(p.integer("rows_large")), 0.0, "rows_large"};
    const double cell_modes = (seed_models(p) ? 8.0 : 9.0) * kMatrixModeCount;
    est.timing_ms =
        cell_modes * static_cast<double>(p.integer("repeats") + 2) * p.number("chunk_ms");
    return est;
  };
  e.small_config = {"rows_small=2", "rows_medium=4", "rows_large=8",
                    "repeats=1",    "chunk_ms=0.2",  "max_seconds=0"};
  e.golden_configs = {{"rows_large=512", "repeats=1", "chunk_ms=1", "max_seconds=0"},
                      {"rows_large=1024", "repeats=1", "chunk_ms=1", "max_seconds=0"},
                      {}};
  e.start = start_run_of<MatrixRun>;
  return e;
}

}  // namespace looplab
