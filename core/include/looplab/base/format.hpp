// looplab/base/format.hpp — numbers and values as people read them in messages and results.
//
//   format_number(0.0001) -> "0.0001"     format_number(1e7) -> "10000000"
//   in_language(format_sig(1.734), "id") -> "1,73"  (each language's decimal and grouping signs)
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

// A size in bytes to 3 significant digits in decimal units: 2.4e9 -> "2.4 GB", 512 -> "512 B".
std::string format_bytes(double bytes);

// A number formatted above, written with the signs of a catalog language, as the page's
// Intl.NumberFormat writes them: en and zh-CN group with ',' and mark decimals with '.'
// ("132,956", "1.73"); id swaps the two ("132.956", "1,73"), so an Indonesian never reads 3,409×
// as 3.4×. Text that is not a formatted number comes back unchanged apart from those two signs.
//   in_language("3,409", "id") -> "3.409"     in_language("1.23e-04", "id") -> "1,23e-04"
std::string in_language(std::string number, std::string_view lang);

}  // namespace looplab
