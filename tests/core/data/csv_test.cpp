// csv_test.cpp — CSV parsing: values and names as written, and one error per kind of bad file,
// each naming the line and the column; the selection of x and y. (The config's CSV attachment:
// tests/core/experiments/csv_attachment_test.cpp.)
#include "looplab/data/csv.hpp"

#include <gtest/gtest.h>

#include <string>

#include "looplab/base/i18n.hpp"
#include "looplab/base/rng.hpp"

namespace looplab {
namespace {

// The ConfigError message parse_csv throws for `text` ("" if it parses).
std::string csv_error_of(const std::string& text, const CsvLimits& limits = {}) {
  try {
    parse_csv(text, limits);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Csv, ParsesNamesAndValuesInOrder) {
  const CsvTable t = parse_csv("a, \"b, c\",\"say \"\"hi\"\"\"\r\n1,-2.5,3e2\n\n .5 ,+4,-1E-3\n");
  ASSERT_EQ(t.columns.size(), 3u);
  EXPECT_EQ(t.columns[0], "a");
  EXPECT_EQ(t.columns[1], "b, c");
  EXPECT_EQ(t.columns[2], "say \"hi\"");
  ASSERT_EQ(t.rows, 2u);
  EXPECT_DOUBLE_EQ(t.at(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(t.at(0, 1), -2.5);
  EXPECT_DOUBLE_EQ(t.at(0, 2), 300.0);
  EXPECT_DOUBLE_EQ(t.at(1, 0), 0.5);
  EXPECT_DOUBLE_EQ(t.at(1, 1), 4.0);
  EXPECT_DOUBLE_EQ(t.at(1, 2), -0.001);
}

TEST(Csv, ByteOrderMarkAndMissingFinalNewline) {
  const CsvTable t = parse_csv("\xEF\xBB\xBFx,y\n1,2");
  EXPECT_EQ(t.columns[0], "x");
  EXPECT_EQ(t.rows, 1u);
  EXPECT_DOUBLE_EQ(t.at(0, 1), 2.0);
}

TEST(Csv, ErrorsNameLineAndColumn) {
  EXPECT_EQ(csv_error_of("x,y\n1,2\n3\n"),
            "csv line 3 (data row 2), column \"y\": missing (the row has 1 fields, the header 2)");
  EXPECT_EQ(csv_error_of("x,y\n1,2,3\n"),
            "csv line 2 (data row 1), column 3: extra field (the header has 2 columns)");
  EXPECT_EQ(csv_error_of("x,y\n1,2\n\n4,abc\n"),
            "csv line 4 (data row 2), column \"y\": \"abc\" is not a number");
  EXPECT_EQ(csv_error_of("x,y\n1,NaN\n"),
            "csv line 2 (data row 1), column \"y\": \"NaN\" is not allowed (NaN and infinity are "
            "not data)");
  EXPECT_EQ(csv_error_of("x,y\n-inf,1\n"),
            "csv line 2 (data row 1), column \"x\": \"-inf\" is not allowed (NaN and infinity are "
            "not data)");
  EXPECT_EQ(csv_error_of("x,y\n1e39,1\n"),
            "csv line 2 (data row 1), column \"x\": \"1e39\" is outside the float32 range");
  EXPECT_EQ(csv_error_of("x,y\n1,\n"),
            "csv line 2 (data row 1), column \"y\": empty value (every cell must be a number)");
  EXPECT_EQ(csv_error_of("x,x\n1,2\n"),
            "csv line 1, column 2: duplicate column name \"x\" (also column 1)");
  EXPECT_EQ(csv_error_of("x,,z\n1,2,3\n"),
            "csv line 1, column 2: empty column name (the first row is the header)");
  EXPECT_EQ(csv_error_of("\"x,y\n"), "csv line 1, column 1: a quote is not closed on this line");
  EXPECT_EQ(csv_error_of("\"x\"q,y\n"), "csv line 1, column 1: text after the closing quote");
  EXPECT_EQ(csv_error_of(""), "csv: the file is empty (it needs a header row and data rows)");
  EXPECT_EQ(csv_error_of(" \n\r\n"),
            "csv: the file is empty (it needs a header row and data rows)");
  EXPECT_EQ(csv_error_of("x,y\n"), "csv: no data rows after the header (line 1)");
}

// Every CSV error is a message {key, args} (not English text), said in each language with the line,
// the column and the cell as the English names them.
TEST(Csv, ErrorsAreSaidInEveryLanguage) {
  const auto message_of = [](const std::string& text, const CsvLimits& limits = {}) {
    try {
      parse_csv(text, limits);
    } catch (const ConfigError& e) {
      return e.message();
    }
    return json();
  };
  const json m = message_of("x,y\n1,2\n\n4,abc\n");
  EXPECT_EQ(render(m, "zh-CN"), "csv 第 4 行（第 2 个数据行），列 \"y\"：\"abc\" 不是数");
  EXPECT_EQ(render(m, "id"), "csv baris 4 (baris data 2), kolom \"y\": \"abc\" bukan angka");
  CsvLimits small;
  small.max_bytes = 10;
  CsvLimits cols;
  cols.max_columns = 2;
  const json all[] = {m,
                      message_of("x,y\n1,2\n3\n"),
                      message_of("x,y\n1,2,3\n"),
                      message_of("x,y\n1,NaN\n"),
                      message_of("x,y\n1e39,1\n"),
                      message_of("x,y\n1,\n"),
                      message_of("x,x\n1,2\n"),
                      message_of("x,,z\n1,2,3\n"),
                      message_of("\"x,y\n"),
                      message_of("\"x\"q,y\n"),
                      message_of(""),
                      message_of("x,y\n"),
                      message_of("x,y\n1,2\n3,4\n", small),
                      message_of("a,b,c\n1,2,3\n", cols)};
  for (const json& e : all) {
    ASSERT_TRUE(is_message(e)) << e.dump();
    EXPECT_NE(e["key"], "err.text") << english(e);
    for (const char* lang : {"zh-CN", "id"}) {
      const std::string said = render(e, lang);
      EXPECT_NE(said, english(e)) << lang;
      EXPECT_EQ(said.find("\u27e6"), std::string::npos) << said;
    }
  }
  try {
    select_xy(parse_csv("a,b\n1,2\n"), "height", "b");
    FAIL() << "no error for an unknown column";
  } catch (const ConfigError& e) {
    EXPECT_EQ(render(e.message(), "zh-CN"), "x: CSV 中没有列 \"height\"；它的列是 \"a\" | \"b\"");
  }
}

TEST(Csv, RejectsWhatIsNotPlainDecimal) {
  for (const char* bad : {"0x10", "1.2.3", "e5", "1e", "--1", "1,5x", ".", "+", "1 2", "infinity"})
    EXPECT_NE(csv_error_of(std::string("v\n") + bad + "\n"), "") << bad;
  for (const char* good : {"0", "-0", "10.", ".25", "1e5", "1E+5", "-3.5e-2"})
    EXPECT_EQ(csv_error_of(std::string("v\n") + good + "\n"), "") << good;
}

TEST(Csv, LimitsAreChecked) {
  CsvLimits small;
  small.max_bytes = 10;
  EXPECT_EQ(csv_error_of("x,y\n1,2\n3,4\n", small),
            "csv: the file has 12 bytes, at most 10 are allowed");
  CsvLimits rows;
  rows.max_rows = 2;
  EXPECT_EQ(csv_error_of("x\n1\n2\n", rows), "");
  EXPECT_EQ(csv_error_of("x\n1\n2\n3\n", rows), "csv line 4: more than 2 data rows");
  CsvLimits cols;
  cols.max_columns = 2;
  EXPECT_EQ(csv_error_of("a,b,c\n1,2,3\n", cols),
            "csv line 1, column 3: too many columns (at most 2)");
}

TEST(Csv, MessagesDoNotCarryControlCharactersOrLongText) {
  std::string text = "x\n\x1b[31m";
  text.append(100, 'a');
  const std::string msg = csv_error_of(text + "\n");
  EXPECT_EQ(msg.find('\x1b'), std::string::npos);
  EXPECT_LT(msg.size(), 120u);
}

// A seeded stand-in for the fuzzer to come: random mutations of a valid file either parse to a
// consistent table or throw ConfigError, never anything else (run it under the asan preset too).
TEST(Csv, RandomMutationsParseOrThrowConfigErrorOnly) {
  const std::string base = "a,\"b \"\"q\"\"\",c\r\n1,-2.5e3,.5\n\n3,4,5\n";
  const std::string alphabet = "0123456789.,-+eE\"\r\n \tnaNinf\x00\xEF\xBB\xBF";
  Rng rng(7);
  int parsed = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(rng.next_u64() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng.next_u64() % (text.size() + 1);
      const char c = alphabet[rng.next_u64() % alphabet.size()];
      switch (rng.next_u64() % 3) {
        case 0:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        case 1:
          if (at < text.size()) text.erase(at, 1);
          break;
        default:
          if (at < text.size()) text[at] = c;
          break;
      }
    }
    try {
      const CsvTable t = parse_csv(text);
      ASSERT_EQ(t.values.size(), t.rows * t.columns.size()) << text;
      ++parsed;
    } catch (const ConfigError& err) {
      ASSERT_NE(std::string(err.what()).find("csv"), std::string::npos) << err.what();
    }
  }
  EXPECT_GT(parsed, 100);  // the mutations do not only produce errors
}

TEST(Csv, SelectXyPicksColumnsByName) {
  const CsvTable t = parse_csv("a,b,c\n1,2,3\n4,5,6\n");
  const LinearData d = select_xy(t, "c", "a");
  ASSERT_EQ(d.x.shape().rows, 2);
  EXPECT_EQ(d.x[0], 3.0f);
  EXPECT_EQ(d.x[1], 6.0f);
  EXPECT_EQ(d.y[0], 1.0f);
  EXPECT_EQ(d.y[1], 4.0f);
  EXPECT_THROW(select_xy(t, "a", "a"), ConfigError);
  try {
    select_xy(t, "nope", "a");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "x: no column \"nope\" in the CSV; its columns are \"a\" | \"b\" | \"c\"");
  }
}

// x names at most kMaxFeatures columns: the analysis's eigen-decomposition grows as their cube.
TEST(Csv, SelectXyTakesAtMostSixteenXColumns) {
  std::string header, row, x;
  for (int i = 0; i <= kMaxFeatures; ++i) {
    header += "c" + std::to_string(i) + ",";
    row += std::to_string(i) + ",";
  }
  const CsvTable t = parse_csv(header + "y\n" + row + "1\n" + row + "2\n");
  for (int i = 0; i < kMaxFeatures; ++i) x += (i ? ",c" : "c") + std::to_string(i);
  EXPECT_EQ(select_xy(t, x, "y").x.shape().cols, kMaxFeatures);
  try {
    select_xy(t, x + ",c" + std::to_string(kMaxFeatures), "y");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "x: names 17 columns; at most 16 may be features");
  }
}

}  // namespace
}  // namespace looplab
