// comparison.cpp — verdicts from values and spreads, and the clause each comparison renders.
#include "looplab/experiments/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include "looplab/base/format.hpp"
#include "looplab/base/i18n.hpp"
#include "looplab/experiments/results.hpp"
#include "looplab/experiments/timing.hpp"

namespace looplab {
namespace {

const char* better_word(Quantity q) { return q == Quantity::Rate ? "higher" : "lower"; }

const char* quantity_word(Quantity q) {
  static const char* const words[] = {"time", "count", "loss", "rate"};  // Quantity's order
  return words[static_cast<int>(q)];
}

Verdict verdict_from(double a, double sa, double b, double sb, bool lower_better) {
  const double gap = std::abs(a - b);
  if (gap <= std::abs(sa) + std::abs(sb) || gap <= 1e-12 * std::max(std::abs(a), std::abs(b)))
    return Verdict::Same;
  return (a < b) == lower_better ? Verdict::A : Verdict::B;
}

const char* verdict_word(Verdict v) {
  static const char* const words[] = {"a", "b", "same", "inconclusive"};  // Verdict's order
  return words[static_cast<int>(v)];
}

thread_local double current_band = kPracticalBand;

// RatioVerdict and Verdict name the same four outcomes in the same order.
static_assert(static_cast<int>(RatioVerdict::BFaster) == static_cast<int>(Verdict::B) &&
              static_cast<int>(RatioVerdict::Inconclusive) ==
                  static_cast<int>(Verdict::Inconclusive));
Verdict verdict_of_ratio(const PairedRatio& r, double band) {
  return static_cast<Verdict>(ratio_verdict(r, band));
}

// The ratio a/b over the rounds both sides have (a side that stopped early, diverged, has fewer);
// with no common round, 1 with a point interval and 0 rounds: inconclusive.
PairedRatio ratio_over_rounds(std::vector<double> a, std::vector<double> b) {
  const std::size_t n = std::min(a.size(), b.size());
  if (n == 0) return {1.0, 1.0, 1.0, 0, 0, 0.0};
  a.resize(n);
  b.resize(n);
  return paired_ratio(a, b);
}

bool is_paired(const json& c) { return c.contains("rounds"); }

// A paired record's ratio as paired.hpp judges it; nullopt when malformed.
std::optional<PairedRatio> ratio_of(const json& c) {
  const json* ci = c.contains("ci") ? &c["ci"] : nullptr;
  if (!c["rounds"].is_number_integer() || !c.contains("ratio") || !c["ratio"].is_number() || !ci ||
      !ci->is_array() || ci->size() != 2 || !(*ci)[0].is_number() || !(*ci)[1].is_number())
    return std::nullopt;
  PairedRatio r{c["ratio"].get<double>(), (*ci)[0].get<double>(), (*ci)[1].get<double>(),
                c["rounds"].get<int>(),   c["rounds"].get<int>(), 0.0};
  if (!(r.lo <= r.ratio && r.ratio <= r.hi)) return std::nullopt;  // misses its estimate
  return r;
}

// A paired a/b verdict whose interval does not lie wholly beyond the band: which side is faster
// is decided, by how much is not.
bool leaning(const json& c) {
  const std::string v = c.value("verdict", "same");
  return is_paired(c) && (v == "a" || v == "b") && !c.value("beyond_band", true);
}

// "18.8" or "18.8 ± 0.9" as a message: the numbers stay numbers, formatted by the renderer. The
// arguments are the same whatever the verdict, so a result's structure never depends on a timing.
json value_message(const json& side, bool with_spread) {
  const double spread = with_spread ? side.value("spread", 0.0) : 0.0;  // 0: not shown
  return msg(spread > 0.0 ? "cmp.value_spread" : "cmp.value",
             {{"v", side.value("value", 0.0)}, {"s", spread}});
}

double factor_of(const json& c) {
  const std::string v = c.value("verdict", "same");
  if (v != "a" && v != "b") return 1.0;
  if (is_paired(c)) {  // a/b is a time ratio: the winner's factor is its inverse when a won
    const double r = c.value("ratio", 1.0);
    return r > 0.0 ? (v == "a" ? 1.0 / r : r) : 1.0;
  }
  const bool lower = c.value("better", "lower") == "lower";
  const json& win = c[v == "a" ? "a" : "b"];
  const json& lose = c[v == "a" ? "b" : "a"];
  const double num = (lower ? lose : win).value("value", 0.0);
  const double den = (lower ? win : lose).value("value", 0.0);
  return den > 0.0 && num > 0.0 ? num / den : 1.0;
}

// What a paired comparison's rounds show, as a message: for a winner its factor's interval ("95%
// interval 1.6–1.9× over 40 rounds"), otherwise the ratio a/b and its interval, or its range when
// the rounds are too few for a 95% interval.
json evidence_message(const json& c, const std::string& verdict) {
  const json& ci = c.at("ci");
  double lo = ci.at(0).get<double>(), hi = ci.at(1).get<double>();
  const bool win = verdict == "a" || verdict == "b";
  if (verdict == "a") std::tie(lo, hi) = std::pair(1.0 / hi, 1.0 / lo);
  const bool few = c.value("rounds", 0) < kMinDecidingRounds;  // [smallest, largest]: no 95%
  // The same arguments whatever the verdict: a result's structure never depends on a timing.
  return msg(win   ? "cmp.evidence_win"
             : few ? "cmp.evidence_few"
                   : "cmp.evidence_ratio",
             {{"a", c["a"].value("label", "")},
              {"b", c["b"].value("label", "")},
              {"ratio", c.value("ratio", 1.0)},
              {"lo", lo},
              {"hi", hi},
              {"rounds", plural("cmp.rounds", c.value("rounds", 0LL))}});
}

double band_percent(const json& c) { return c.value("band", kPracticalBand) * 100.0; }

}  // namespace

double Comparison::factor() const {
  if (verdict == Verdict::Same || verdict == Verdict::Inconclusive) return 1.0;
  if (paired && paired->ratio > 0.0)
    return verdict == Verdict::A ? 1.0 / paired->ratio : paired->ratio;
  const Measure& win = verdict == Verdict::A ? a : b;
  const Measure& lose = verdict == Verdict::A ? b : a;
  const double num = lower_is_better() ? lose.value : win.value;
  const double den = lower_is_better() ? win.value : lose.value;
  return den > 0.0 && num > 0.0 ? num / den : 1.0;
}

double practical_band() { return current_band; }
BandScope::BandScope(double band) : saved_(current_band) { current_band = band; }
BandScope::~BandScope() { current_band = saved_; }

bool Comparison::beyond_band() const {
  if (verdict != Verdict::A && verdict != Verdict::B) return false;
  return !paired || looplab::beyond_band(*paired, band);
}

bool Comparison::decided() const {
  if (!paired) return true;
  return verdict == Verdict::Same || beyond_band();
}

json Comparison::message() const { return comparison_message(to_json()); }
json Comparison::short_message() const { return comparison_short_message(to_json()); }
std::string Comparison::sentence() const { return english(message()); }

std::string Comparison::short_text() const { return english(short_message()); }

// The clause: for a verdict a or b, side "a" of the message is the winner. Every message has the
// same arguments (a, b, factor, unit, values; band when paired) whatever the verdict.
json comparison_message(const json& c) {
  const std::string verdict = c.value("verdict", "same"), quantity = c.value("quantity", "time");
  const std::string unit = c.value("unit", "");
  const bool win = verdict == "a" || verdict == "b", paired = is_paired(c);
  const json unit_part = unit.empty() ? json() : msg("cmp.unit", {{"unit", unit}});
  const json& first = c[verdict == "b" ? "b" : "a"];
  const json& second = c[verdict == "b" ? "a" : "b"];
  const bool spread = !win && !paired;
  json values_args = object({{"a", value_message(first, spread)},
                             {"b", value_message(second, spread)},
                             {"unit", unit_part}});
  if (paired) values_args["evidence"] = evidence_message(c, verdict);
  const json values = msg(paired ? "cmp.values_paired" : "cmp.values", values_args);
  const std::string family = leaning(c)                  ? "cmp.lean."
                             : win                       ? "cmp.win."
                             : verdict == "inconclusive" ? "cmp.unsure."
                             : paired                    ? "cmp.same_paired."
                                                         : "cmp.same.";
  // A winner over a count that stopped at its limit won by at least its factor.
  const std::string bound = win && second.value("bound", false) ? "_bound" : "";
  json args = object({{"a", first.value("label", "")},
                      {"b", second.value("label", "")},
                      {"factor", factor_of(c)},
                      {"unit", unit},
                      {"values", values}});
  if (paired) args["band"] = band_percent(c);
  return msg(family + quantity + bound, args);
}

json comparison_short_message(const json& c) {
  const std::string verdict = c.value("verdict", "same"), quantity = c.value("quantity", "time");
  const bool paired = is_paired(c);
  const bool bound = c[verdict == "b" ? "a" : "b"].value("bound", false);
  const std::string key = leaning(c) ? std::string("cmp.short.lean")
                          : verdict == "a" || verdict == "b"
                              ? "cmp.short." + quantity + (bound ? "_bound" : "")
                          : verdict == "inconclusive" ? std::string("cmp.short.unsure")
                          : quantity == "loss"        ? std::string("cmp.short.same_loss")
                          : paired                    ? std::string("cmp.short.same_paired")
                                                      : std::string("cmp.short.same");
  json args = object({{"a", c[verdict == "b" ? "b" : "a"].value("label", "")},
                      {"factor", factor_of(c)},
                      {"unit", c.value("unit", "")}});
  if (paired) args["band"] = band_percent(c);
  return msg(key, args);
}

json Comparison::to_json() const {
  const auto side = [](const Measure& m) {
    json s = object({{"label", m.label}, {"value", m.value}, {"spread", m.spread}});
    if (m.bound) s["bound"] = true;
    return s;
  };
  json j = object({{"id", id},
                   {"a", side(a)},
                   {"b", side(b)},
                   {"quantity", quantity_word(quantity)},
                   {"unit", unit},
                   {"better", better_word(quantity)},
                   {"verdict", verdict_word(verdict)}});
  if (paired) {
    j["ratio"] = paired->ratio;
    j["ci"] = {paired->lo, paired->hi};
    j["rounds"] = paired->rounds;  // the look's; "taken" counts every round
    j["taken"] = paired->taken;
    j["level"] = paired->level;
    j["band"] = band;
    j["beyond_band"] = beyond_band();
    j["decided"] = decided();
  }
  j["message"] = comparison_message(j);
  j["short"] = comparison_short_message(j);
  return j;
}

json interval_json(const std::vector<double>& rounds) {
  const Interval i = median_interval(rounds);
  return json::array({i.lo, i.hi});
}

Measure paired_side(std::string label, std::vector<double> rounds) {
  Measure m(std::move(label), median(rounds), half_iqr(rounds));
  m.rounds = std::move(rounds);
  m.in_rounds = true;
  return m;
}

std::vector<double> in_ms(std::vector<double> rounds_us) {
  for (double& v : rounds_us) v /= 1000.0;
  return rounds_us;
}

Comparison compare(std::string id, Measure a, Measure b, Quantity quantity, std::string unit) {
  Comparison c{std::move(id),   std::move(a),  std::move(b), quantity,
               std::move(unit), Verdict::Same, std::nullopt};
  // Sides timed in rounds are judged by their rounds, however few: none is "not enough evidence",
  // never "the same" by spreads of nothing.
  if (c.a.in_rounds || c.b.in_rounds || !c.a.rounds.empty() || !c.b.rounds.empty()) {
    if (quantity != Quantity::Time)
      throw std::invalid_argument("compare " + c.id + ": paired rounds are for times only");
    c.paired = ratio_over_rounds(c.a.rounds, c.b.rounds);
    c.band = practical_band();
    c.verdict = verdict_of_ratio(*c.paired, c.band);
    return c;
  }
  c.verdict = verdict_from(c.a.value, c.a.spread, c.b.value, c.b.spread, c.lower_is_better());
  return c;
}

json comparisons_json(const std::vector<Comparison>& comparisons) {
  json out = json::array();
  for (const Comparison& c : comparisons) out.push_back(c.to_json());
  return out;
}

std::string verdict_of(const json& c) {
  if (is_paired(c)) {  // from the ratio's interval: {ratio, ci: [lo, hi], rounds}
    const std::optional<PairedRatio> r = ratio_of(c);
    if (!r) return "";
    const json band_json = c.contains("band") ? c["band"] : json(kPracticalBand);
    if (!band_json.is_number() || !(band_json.get<double>() > 0.0)) return "";
    const double band = band_json.get<double>();
    if (c.contains("beyond_band") && c["beyond_band"] != json(beyond_band(*r, band))) return "";
    return verdict_word(verdict_of_ratio(*r, band));
  }
  const auto number = [&](const char* side, const char* key) -> const json* {
    if (!c.is_object() || !c.contains(side) || !c[side].is_object()) return nullptr;
    const json& s = c[side];
    return s.contains(key) && s[key].is_number() ? &s[key] : nullptr;
  };
  const json *a = number("a", "value"), *sa = number("a", "spread"), *b = number("b", "value"),
             *sb = number("b", "spread");
  if (!a || !sa || !b || !sb || !c.contains("better") || !c["better"].is_string()) return "";
  const std::string better = c["better"];
  if (better != "lower" && better != "higher") return "";
  return verdict_word(verdict_from(a->get<double>(), sa->get<double>(), b->get<double>(),
                                   sb->get<double>(), better == "lower"));
}

const Comparison* find_comparison(const std::vector<Comparison>& all, std::string_view id) {
  for (const Comparison& c : all)
    if (c.id == id) return &c;
  return nullptr;
}

const Comparison& comparison(const std::vector<Comparison>& all, std::string_view id) {
  if (const Comparison* c = find_comparison(all, id)) return *c;
  throw std::logic_error("no comparison " + std::string(id));
}

std::vector<Comparison> paired_only(std::vector<Comparison> all) {
  std::erase_if(all, [](const Comparison& c) { return !c.paired; });
  return all;
}

}  // namespace looplab
