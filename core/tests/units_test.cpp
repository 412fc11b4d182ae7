#include "core/units.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace sonde {
namespace {

TEST(FormatBytes, UsesBinaryUnits) {
  EXPECT_EQ(format_bytes(4096), "4 KiB");
  EXPECT_EQ(format_bytes(49152), "48 KiB");
  EXPECT_EQ(format_bytes(1.5 * 1048576), "1.50 MiB");
  EXPECT_EQ(format_bytes(256.0 * 1048576), "256 MiB");
  EXPECT_EQ(format_bytes(100), "100 B");
}

TEST(FormatSeconds, PicksAHumaneUnit) {
  EXPECT_EQ(format_seconds(1.234e-9), "1.23 ns");
  EXPECT_EQ(format_seconds(95.5e-9), "95.5 ns");
  EXPECT_EQ(format_seconds(4.5e-6), "4.50 us");
  EXPECT_EQ(format_seconds(2), "2.00 s");
  EXPECT_EQ(format_seconds(0), "0 s");
}

TEST(FormatRates, AreDecimal) {
  EXPECT_EQ(format_bytes_per_second(36.32e9), "36.3 GB/s");
  EXPECT_EQ(format_bytes_per_second(512e6), "512 MB/s");
  EXPECT_EQ(format_hertz(2.596e9), "2.60 GHz");
}

TEST(ParseBytes, AcceptsCommonForms) {
  EXPECT_EQ(parse_bytes("4096", "--x"), 4096u);
  EXPECT_EQ(parse_bytes("4096B", "--x"), 4096u);
  EXPECT_EQ(parse_bytes("48KiB", "--x"), 49152u);
  EXPECT_EQ(parse_bytes("48 KiB", "--x"), 49152u);
  EXPECT_EQ(parse_bytes("48K", "--x"), 49152u);
  EXPECT_EQ(parse_bytes("1.5MiB", "--x"), 1572864u);
  EXPECT_EQ(parse_bytes("2GiB", "--x"), 2147483648u);
  EXPECT_EQ(parse_bytes("1GB", "--x"), 1000000000u);
}

TEST(ParseBytes, RejectsBadInputNamingTheOption) {
  for (const char* bad : {"", "abc", "12 parsecs", "-4KiB", "0.3", "nan", "1e300"}) {
    try {
      parse_bytes(bad, "--max-working-set");
      FAIL() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("--max-working-set"), std::string::npos) << e.what();
    }
  }
}

TEST(ParseBytes, NamesTheUnknownUnit) {
  try {
    parse_bytes("12 parsecs", "--size");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown unit 'parsecs'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sonde

namespace sonde {
namespace {
TEST(ParseDuration, AcceptsSecondsMinutesAndHoursInOrder) {
  EXPECT_DOUBLE_EQ(parse_duration("600", "--budget"), 600);
  EXPECT_DOUBLE_EQ(parse_duration("90s", "--budget"), 90);
  EXPECT_DOUBLE_EQ(parse_duration("10m", "--budget"), 600);
  EXPECT_DOUBLE_EQ(parse_duration("1.5h", "--budget"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration("1h30m", "--budget"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration("2m30s", "--budget"), 150);
  for (const char* bad :
       {"", "ten", "10x", "-5m", "0", "0s", "10m1h", "1h1h", "0m30", "5m30", "1e300", "9999h"}) {
    try {
      parse_duration(bad, "--budget");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      EXPECT_NE(std::string(e.what()).find("--budget"), std::string::npos);
    }
  }
}

TEST(Units, FormatsWithDecimalPrefixes) {
  EXPECT_EQ(format_si(266e6, "flop/s"), "266 Mflop/s");
  EXPECT_EQ(format_si(1.44688e9, "flop"), "1.45 Gflop");
  EXPECT_EQ(format_si(12, "flop"), "12 flop");
  EXPECT_EQ(format_si(2.6e15, "flop/s"), "2.6 Pflop/s");
}
}  // namespace
}  // namespace sonde
