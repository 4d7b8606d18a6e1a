// comparison.cpp — verdicts from values and spreads, and the clause each comparison renders.
#include "looplab/experiments/comparison.hpp"

#include <cmath>

#include "looplab/base/format.hpp"
#include "looplab/base/i18n.hpp"

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

// "18.8" or "18.8 ± 0.9" as a message: the numbers stay numbers, formatted by the renderer. The
// arguments are the same whatever the verdict, so a result's structure never depends on a timing.
json value_message(const json& side, bool with_spread) {
  const double spread = with_spread ? side.value("spread", 0.0) : 0.0;  // 0: not shown
  return msg(spread > 0.0 ? "cmp.value_spread" : "cmp.value",
             {{"v", side.value("value", 0.0)}, {"s", spread}});
}

double factor_of(const json& c) {
  const std::string v = c.value("verdict", "same");
  if (v == "same") return 1.0;
  const bool lower = c.value("better", "lower") == "lower";
  const json& win = c[v == "a" ? "a" : "b"];
  const json& lose = c[v == "a" ? "b" : "a"];
  const double num = (lower ? lose : win).value("value", 0.0);
  const double den = (lower ? win : lose).value("value", 0.0);
  return den > 0.0 && num > 0.0 ? num / den : 1.0;
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

std::string Comparison::sentence() const { return english(comparison_message(to_json())); }

std::string Comparison::short_text() const { return english(comparison_short_message(to_json())); }

// The clause: for a verdict a or b, side "a" of the message is the winner. Every message has the
// same arguments (a, b, factor, unit, values) whatever the verdict.
json comparison_message(const json& c) {
  const std::string verdict = c.value("verdict", "same"), quantity = c.value("quantity", "time");
  const std::string unit = c.value("unit", "");
  const bool same = verdict == "same";
  const json unit_part = unit.empty() ? json() : msg("cmp.unit", {{"unit", unit}});
  const json& first = c[verdict == "b" ? "b" : "a"];
  const json& second = c[verdict == "b" ? "a" : "b"];
  const json values = msg(
      "cmp.values",
      {{"a", value_message(first, same)}, {"b", value_message(second, same)}, {"unit", unit_part}});
  return msg((same ? "cmp.same." : "cmp.win.") + quantity, {{"a", first.value("label", "")},
                                                            {"b", second.value("label", "")},
                                                            {"factor", factor_of(c)},
                                                            {"unit", unit},
                                                            {"values", values}});
}

json comparison_short_message(const json& c) {
  const std::string verdict = c.value("verdict", "same"), quantity = c.value("quantity", "time");
  const std::string key = verdict != "same"    ? "cmp.short." + quantity
                          : quantity == "loss" ? "cmp.short.same_loss"
                                               : "cmp.short.same";
  return msg(key, {{"a", c[verdict == "b" ? "b" : "a"].value("label", "")},
                   {"factor", factor_of(c)},
                   {"unit", c.value("unit", "")}});
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

const Comparison* find_comparison(const std::vector<Comparison>& all, std::string_view id) {
  for (const Comparison& c : all)
    if (c.id == id) return &c;
  return nullptr;
}

}  // namespace looplab
