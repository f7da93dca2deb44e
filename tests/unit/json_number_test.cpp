// Whole numbers from JSON (lab/base/json_number.h): a value outside the target's range, a
// fraction or another type is refused, where get<int>() was undefined behaviour or a wrap.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "lab/base/json_number.h"

namespace vpnlab {
namespace {

using nlohmann::json;

TEST(JsonNumber, TakesAWholeNumberThatFits) {
  EXPECT_EQ(whole_number<int>(json(1500)), 1500);
  EXPECT_EQ(whole_number<int>(json(-3)), -3);
  EXPECT_EQ(whole_number<int>(json(1500.0)), 1500) << "a whole double is a whole number";
  EXPECT_EQ(whole_number<uint64_t>(json(std::numeric_limits<uint64_t>::max())), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(whole_number<int64_t>(json(std::numeric_limits<int64_t>::min())), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(whole_number<int>(json(2147483647)), 2147483647);
}

TEST(JsonNumber, RefusesWhatDoesNotFit) {
  EXPECT_EQ(whole_number<int>(json(1.5e115)), std::nullopt);
  EXPECT_EQ(whole_number<int>(json(2147483648LL)), std::nullopt);
  EXPECT_EQ(whole_number<int>(json(2147483648.0)), std::nullopt);
  EXPECT_EQ(whole_number<int>(json(1.5)), std::nullopt);
  EXPECT_EQ(whole_number<uint64_t>(json(-1)), std::nullopt);
  EXPECT_EQ(whole_number<uint64_t>(json(-1.0)), std::nullopt);
  EXPECT_EQ(whole_number<uint64_t>(json(18446744073709551616.0)), std::nullopt)
      << "2^64 rounds to a double that does not fit";
  EXPECT_EQ(whole_number<int64_t>(json(9223372036854775808.0)), std::nullopt);
  EXPECT_EQ(whole_number<int>(json(std::numeric_limits<double>::infinity())), std::nullopt);
  EXPECT_EQ(whole_number<int>(json(std::numeric_limits<double>::quiet_NaN())), std::nullopt);
  EXPECT_EQ(whole_number<int>(json("1500")), std::nullopt);
  EXPECT_EQ(whole_number<int>(json(true)), std::nullopt);
  EXPECT_EQ(whole_number<int>(json(nullptr)), std::nullopt);
}

TEST(JsonNumber, OrGivesTheFallbackForAnythingElse) {
  const json j = {{"mtu", 1400}, {"huge", 1e300}, {"text", "x"}};
  EXPECT_EQ(whole_number_or(j, "mtu", 0), 1400);
  EXPECT_EQ(whole_number_or(j, "huge", 7), 7);
  EXPECT_EQ(whole_number_or(j, "text", 7), 7);
  EXPECT_EQ(whole_number_or(j, "absent", 7), 7);
  EXPECT_EQ(whole_number_or(json::array({1}), "mtu", 7), 7) << "not an object";
}

TEST(JsonNumber, AtNamesTheKeyAndTheValue) {
  const json j = {{"mode", 0600}, {"mtu", -1.0}};
  EXPECT_EQ(whole_number_at<int>(j, "mode"), 0600);
  try {
    (void)whole_number_at<uint16_t>(j, "mtu");
    FAIL() << "a negative MTU was taken";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "'mtu': -1.0 is not a whole number from 0 to 65535");
  }
  EXPECT_THROW((void)whole_number_at<int>(j, "absent"), json::out_of_range);
}

}  // namespace
}  // namespace vpnlab
