// csv_attachment_test.cpp — a config's CSV attachment (experiments/csv_attachment.hpp): taken out
// of the config and checked, default columns, and results that carry no CSV text.
#include "looplab/experiments/csv_attachment.hpp"

#include <gtest/gtest.h>

namespace looplab {
namespace {

TEST(Csv, AttachmentIsTakenOutOfTheConfigAndChecked) {
  json config = {{"experiment", "e"}, {"csv", {{"text", "p,q\n1,2\n"}, {"y", "p"}}}};
  const json csv = take_csv_config(config, "e", true);
  EXPECT_FALSE(config.contains("csv"));
  EXPECT_EQ(csv["y"], "p");
  json other = {{"csv", {{"text", "p\n1\n"}}}};
  EXPECT_THROW(take_csv_config(other, "e", false), ConfigError);
  json bad = {{"csv", {{"text", 5}}}};
  EXPECT_THROW(take_csv_config(bad, "e", true), ConfigError);
  json extra = {{"csv", {{"text", "a"}, {"sep", ";"}}}};
  EXPECT_THROW(take_csv_config(extra, "e", true), ConfigError);
  json none = {{"experiment", "e"}};
  EXPECT_TRUE(take_csv_config(none, "e", true).is_null());
}

TEST(Csv, DefaultColumnsAreFirstAndLastAndResultsCarryNoText) {
  json values = {{"seed", 1}, {"csv", {{"text", "a,b,c\n1,2,3\n"}, {"name", "mine.csv"}}}};
  const Params p(values);
  const auto d = csv_data(p);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->x, "a");
  EXPECT_EQ(d->y, "c");
  EXPECT_EQ(d->data.y[0], 3.0f);
  const json config = config_without_text(p, d);
  EXPECT_EQ(config["csv"],
            (json{{"name", "mine.csv"}, {"x", "a"}, {"y", "c"}, {"rows", 1}, {"bytes", 12}}));
  EXPECT_FALSE(csv_data(Params(json{{"seed", 1}})).has_value());
  EXPECT_THROW(csv_data(Params(json{{"csv", {{"text", "a\n1\n"}}}})),
               ConfigError);  // one column: no y
}

}  // namespace
}  // namespace looplab
