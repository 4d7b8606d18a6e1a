// looplab/data/csv.hpp — a user's own data: CSV text (a header row, then numeric columns) to a
// table, and two chosen columns of it to the x and y an experiment trains on.
//
//   CsvTable t = parse_csv("height,weight\n1.7,65\n1.8,80\n");   // throws ConfigError
//   LinearData d = select_xy(t, "height", "weight");            // x [2 x 1], y [2 x 1]
//
// Format: fields separated by commas, one record per line (\n or \r\n), a first row of column
// names (quoted names such as "a, b" are fine; "" inside quotes is one "), every later row a
// number in every column (decimal: 12, -3.5, .5, 1e-3; blanks around a field are ignored).
// Blank lines are skipped. Not supported: line breaks inside quotes, other separators.
//
// Errors are ConfigError whose one-line message names the line and the column, e.g.
//   csv line 4 (data row 3), column "weight": "abc" is not a number
// Limits (CsvLimits) are checked before anything is allocated for the values.
//
// NOTE: parse_csv has no global state and never reads past `text`, so it can be fuzzed as is.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "looplab/data/xy_data.hpp"

namespace looplab {

struct CsvLimits {
  std::size_t max_bytes = 16u << 20;  // 16 MiB of text
  std::size_t max_rows = 1'000'000;   // data rows (the header not counted)
  std::size_t max_columns = 256;
};

struct CsvTable {
  std::vector<std::string> columns;  // header names, in file order
  std::vector<double> values;        // rows x columns, row-major
  std::size_t rows = 0;

  // The index of a column by name; throws ConfigError naming `what` and listing the columns.
  std::size_t index(std::string_view name, std::string_view what) const;
  double at(std::size_t row, std::size_t col) const { return values[row * columns.size() + col]; }
};

CsvTable parse_csv(std::string_view text, const CsvLimits& limits = {});

// x = column `x` (or columns "a,b,c": x [rows x 3]), y = column `y` [rows x 1], as float32
// tensors. Throws ConfigError for an unknown name, for y among x, for a column named twice, and for
// a value outside float32's range.
LinearData select_xy(const CsvTable& table, std::string_view x, std::string_view y);

}  // namespace looplab
