// comparison.cpp — verdicts from values and spreads, and the clause each comparison renders.
#include "looplab/experiments/comparison.hpp"

#include <cmath>

#include "looplab/base/format.hpp"

namespace looplab {
namespace {

const char* better_word(Quantity q) { return q == Quantity::Rate ? "higher" : "lower"; }

const char* quantity_word(Quantity q) {
  switch (q) {
    case Quantity::Time:
      return "time";
    case Quantity::Count:
      return "count";
    case Quantity::Loss:
      return "loss";
    case Quantity::Rate:
      return "rate";
  }
  return "time";
}

Verdict verdict_from(double a, double sa, double b, double sb, bool lower_better) {
  const double gap = std::abs(a - b);
  if (gap <= std::abs(sa) + std::abs(sb) || gap <= 1e-12 * std::max(std::abs(a), std::abs(b)))
    return Verdict::Same;
  return (a < b) == lower_better ? Verdict::A : Verdict::B;
}

const char* verdict_word(Verdict v) {
  return v == Verdict::A ? "a" : v == Verdict::B ? "b" : "same";
}

// 1.73, 12.4, 3,409: three significant digits, whole numbers with commas from 1,000 on.
std::string number_text(double v) {
  return std::abs(v) >= 1000.0 && std::abs(v) < 1e15 ? with_commas(std::llround(v))
                                                     : format_sig(v, 3);
}

// "18.8" or "18.8 ± 0.9" with the unit after the pair.
std::string value_text(const Measure& m, bool with_spread) {
  std::string s = number_text(m.value);
  if (with_spread && m.spread > 0.0)
    s += " ± " + (m.spread >= 100.0 ? number_text(std::round(m.spread)) : format_sig(m.spread, 2));
  return s;
}

}  // namespace

double Comparison::factor() const {
  if (verdict == Verdict::Same) return 1.0;
  const Measure& win = verdict == Verdict::A ? a : b;
  const Measure& lose = verdict == Verdict::A ? b : a;
  const double num = lower_is_better() ? lose.value : win.value;
  const double den = lower_is_better() ? win.value : lose.value;
  return den > 0.0 && num > 0.0 ? num / den : 1.0;
}

std::string Comparison::sentence() const {
  const bool same = verdict == Verdict::Same;
  const std::string unit_text = unit.empty() ? "" : " " + unit;
  const std::string values =
      "(" + value_text(a, same) + " vs " + value_text(b, same) + unit_text + ")";
  if (same) {
    switch (quantity) {
      case Quantity::Time:
        return a.label + " and " + b.label + " took the same time within their spread " + values;
      case Quantity::Count:
        return a.label + " and " + b.label + " needed as many " + unit + " within their spread " +
               values;
      case Quantity::Loss:
        return a.label + " and " + b.label + " ended at the same loss " + values;
      case Quantity::Rate:
        return a.label + " and " + b.label + " ran at the same rate within their spread " + values;
    }
  }
  const Measure& win = verdict == Verdict::A ? a : b;
  const Measure& lose = verdict == Verdict::A ? b : a;
  const std::string f = number_text(factor()) + "×";
  const std::string ordered =
      "(" + value_text(win, false) + " vs " + value_text(lose, false) + unit_text + ")";
  switch (quantity) {
    case Quantity::Time:
      return win.label + " was " + f + " faster than " + lose.label + " " + ordered;
    case Quantity::Count:
      return win.label + " needed " + f + " fewer " + unit + " than " + lose.label + " " + ordered;
    case Quantity::Loss:
      return win.label + " ended at a lower loss than " + lose.label + " " + ordered;
    case Quantity::Rate:
      return win.label + " ran " + f + " the rate of " + lose.label + " " + ordered;
  }
  return "";
}

std::string Comparison::short_text() const {
  if (verdict == Verdict::Same)
    return quantity == Quantity::Loss ? "the same loss" : "no measurable difference";
  const Measure& win = verdict == Verdict::A ? a : b;
  const std::string f = number_text(factor()) + "×";
  switch (quantity) {
    case Quantity::Time:
      return win.label + " " + f + " faster";
    case Quantity::Count:
      return win.label + " " + f + " fewer " + unit;
    case Quantity::Loss:
      return win.label + " lower";
    case Quantity::Rate:
      return win.label + " " + f + " the rate";
  }
  return "";
}

json Comparison::to_json() const {
  const auto side = [](const Measure& m) {
    return json{{"label", m.label}, {"value", m.value}, {"spread", m.spread}};
  };
  return {{"id", id},
          {"a", side(a)},
          {"b", side(b)},
          {"quantity", quantity_word(quantity)},
          {"unit", unit},
          {"better", better_word(quantity)},
          {"verdict", verdict_word(verdict)}};
}

Comparison compare(std::string id, Measure a, Measure b, Quantity quantity, std::string unit) {
  Comparison c{std::move(id), std::move(a), std::move(b), quantity, std::move(unit), Verdict::Same};
  c.verdict = verdict_from(c.a.value, c.a.spread, c.b.value, c.b.spread, c.lower_is_better());
  return c;
}

json comparisons_json(const std::vector<Comparison>& comparisons) {
  json out = json::array();
  for (const Comparison& c : comparisons) out.push_back(c.to_json());
  return out;
}

std::string verdict_of(const json& c) {
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

}  // namespace looplab
