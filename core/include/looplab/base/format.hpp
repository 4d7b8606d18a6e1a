// looplab/base/format.hpp — numbers and values as people read them in messages and results.
//
//   format_number(0.0001) -> "0.0001"     format_number(1e7) -> "10000000"
//   with_commas(132955)   -> "132,955"    format_sig(0.000123456, 3) -> "1.23e-04"
//   shown_value(json("abc")) -> "\"abc\""  (what the user gave, cut to 40 characters)
#pragma once

#include <string>
#include <string_view>

#include "looplab/base/json.hpp"

namespace looplab {

// A short, exact rendering of a number for messages: 0.0001 -> "0.0001", 1e+07 -> "10000000".
std::string format_number(double v);

// What the user gave, for a one-line message: numbers via format_number, strings quoted and cut to
// 40 characters (invalid UTF-8 shown as U+FFFD), arrays and objects by kind only — never dumped,
// so a deeply nested or huge value cannot overflow the stack or flood the message.
std::string shown_value(const json& v);

// A name or cell from a file, quoted for a one-line message: control characters shown as '?',
// cut to 40 characters ("..." after).
std::string quoted_text(std::string_view s);

// 132955 -> "132,955"
std::string with_commas(long long v);

// A number with `digits` significant digits, no exponent for ordinary magnitudes.
std::string format_sig(double v, int digits = 3);

}  // namespace looplab
