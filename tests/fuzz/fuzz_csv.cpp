// fuzz_csv — libFuzzer target for CSV loading (the user's own data, issue 4).
//
// Any bytes go to parse_csv. A bad file must come back as a ConfigError (a message naming the row
// and column), nothing else: no crash, no other exception. When a table parses, its shape must be
// consistent and choosing its first and last columns as x and y must either work or be refused
// with a ConfigError (one column, a value outside float32).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "looplab/api/api.hpp"
#include "looplab/data/csv.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const looplab::CsvTable t = looplab::parse_csv(text);
    if (t.columns.empty() || t.values.size() != t.rows * t.columns.size()) std::abort();
    try {
      const looplab::LinearData d = looplab::select_xy(t, t.columns.front(), t.columns.back());
      if (static_cast<std::size_t>(d.x.shape().rows) != t.rows ||
          static_cast<std::size_t>(d.y.shape().rows) != t.rows)
        std::abort();
    } catch (const looplab::ConfigError&) {
    }
  } catch (const looplab::ConfigError&) {
  }
  return 0;
}
