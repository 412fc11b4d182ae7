// Workload spreadsheets as spreadsheet programs save them (a byte-order mark and CRLF, or
// semicolons and decimal commas) predict as the original does; what cannot be read is refused
// naming the cell and showing what cannot be seen. Includes the cases fuzzing found
// (fuzz/regressions/workload).
#include <gtest/gtest.h>

#include <string>

#include "core/atomic_file.hpp"
#include "core/csv_table.hpp"
#include "core/error.hpp"
#include "predict/predictor.hpp"
#include "predict/workload.hpp"
#include "profile/profile.hpp"

namespace sonde::predict {
namespace {

const profile::Profile& sp2() {
  static const profile::Profile p = profile::read_profile("machines/ibm-sp2.yaml");
  return p;
}

// "CSV UTF-8": a byte-order mark and CRLF line ends.
std::string with_bom_and_crlf(const std::string& text) {
  std::string out = "\xEF\xBB\xBF";
  for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

// As a spreadsheet in a locale with a decimal comma saves it: semicolons, "4,12" for 4.12.
std::string with_semicolons(const std::string& text) {
  std::string out;
  for (const CsvRow& row : parse_csv(text, "apt.csv")) {
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      std::string cell = row.cells[i];
      const auto point = cell.find('.');
      if (point != std::string::npos && point > 0 &&
          cell.find_first_not_of("0123456789.") == std::string::npos) {
        cell[point] = ',';
      } else if (cell.find_first_of(";,\"") != std::string::npos) {
        cell = "\"" + cell + "\"";  // the comments; none has a quote
      }
      out += (i > 0 ? ";" : "") + cell;
    }
    out += "\r\n";
  }
  return out;
}

void expect_same_prediction(const Workload& original, const Workload& saved) {
  const Predictor a(original, sp2(), "machines/ibm-sp2.yaml");
  const Predictor b(saved, sp2(), "machines/ibm-sp2.yaml");
  EXPECT_EQ(a.summary().work_flop, b.summary().work_flop);
  EXPECT_EQ(a.summary().t1, b.summary().t1);
  EXPECT_EQ(a.expression(), b.expression());
  for (double n : {1.0, 2.0, 16.0, 256.0, 1024.0}) {
    for (Scheme scheme : {Scheme::theoretical, Scheme::zero_overhead, Scheme::full_overhead}) {
      EXPECT_EQ(a.at(n, scheme).total, b.at(n, scheme).total) << "n = " << n;
    }
  }
}

void expect_rejected(const std::string& text, const std::string& expected) {
  try {
    parse_workload(text, "bad.csv");
    FAIL() << "accepted:\n" << text;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(SpreadsheetExports, AptSavedAsCsvUtf8PredictsTheSame) {
  const std::string apt = read_file("examples/stap/apt.csv");
  const std::string saved = with_bom_and_crlf(apt);
  ASSERT_EQ(saved.rfind("\xEF\xBB\xBFkind,name,", 0), 0u);
  expect_same_prediction(parse_workload(apt, "apt.csv"), parse_workload(saved, "apt.csv"));
}

TEST(SpreadsheetExports, AptFromADecimalCommaLocalePredictsTheSame) {
  const std::string apt = read_file("examples/stap/apt.csv");
  const std::string saved = with_bom_and_crlf(with_semicolons(apt));
  ASSERT_NE(saved.find("component;DP;;84;4,12;ibm-sp2;256"), std::string::npos) << saved;
  expect_same_prediction(parse_workload(apt, "apt.csv"), parse_workload(saved, "apt.csv"));
  // Measured times likewise.
  const auto times = parse_measurements("n;time [ms]\r\n1;25,7\r\n2;15,5\r\n", "measured.csv");
  ASSERT_EQ(times.size(), 2u);
  EXPECT_DOUBLE_EQ(times[1].first, 2);
  EXPECT_DOUBLE_EQ(times[1].second, 15.5e-3);
}

TEST(SpreadsheetExports, DecimalCommasOnlyWhereTheyCannotBeMisread) {
  const std::string header = "kind;name;work [Mflop];time [s];dop\n";
  // Inside an expression a comma separates arguments: the message says where commas are read.
  expect_rejected(header + "component;A;1;2,5*n;4\n",
                  "bad.csv:2:4 (time [s]): in '2,5*n' at character");
  expect_rejected(header + "component;A;1;2,5*n;4\n", "a decimal comma is read only in a cell");
  // A comma-separated file never has a decimal comma, quoted or not: muparser would read "4,12"
  // as two values and keep 12.
  expect_rejected("kind,name,work [Mflop],time [s],dop\ncomponent,A,1,\"4,12\",4\n",
                  "bad.csv:2:4 (time [s]): '4,12' is 2 values separated by commas; expected one "
                  "(a comma-separated file takes a decimal point: 4.12)");
  expect_rejected(header + "component;A;1;4,12+0;4\n", "'4,12+0' is 2 values separated by commas");
}

TEST(SpreadsheetExports, InvisibleCharactersAreNamed) {
  expect_rejected("\xC2\xA0kind,name,work [Mflop],time [s],dop\ncomponent,A,1,2,4\n",
                  "bad.csv:1:1: unknown column '\\u00a0kind' (holds U+00A0 NO-BREAK SPACE)");
  // A byte-order mark that is not at the start of the file (two files put together).
  expect_rejected(
      "kind,name,work [Mflop],time [s],dop\n\xEF\xBB\xBF"
      "component,A,1,2,4\n",
      "unknown kind '\\ufeffcomponent' (holds U+FEFF ZERO WIDTH NO-BREAK SPACE");
  expect_rejected("kind,name,work [Mflop],time [\xE2\x80\x8Bs],dop\n",
                  "unknown unit '\\u200bs' (holds U+200B ZERO WIDTH SPACE) for time");
  expect_rejected("kind,name,work [Mflop],time [s],dop\ncomponent,A,1,2,4\tn\n",
                  "in '4\\u0009n' (holds U+0009 CHARACTER TABULATION)");
  expect_rejected("kind,name,time [\xB5s]\n", "bad.csv:1: byte 0xB5 is not UTF-8");
}

// fuzz/regressions/workload/text-after-the-unit.csv: a header's text after ']' was dropped, and
// the message that quoted the header printed only up to its first NUL.
TEST(SpreadsheetFindings, TextAfterTheUnitIsRefused) {
  expect_rejected("kind,name,work [Mflop],rate [Mflop/s]x,dop\n",
                  "bad.csv:1:4: 'rate [Mflop/s]x': 'x' after the unit; expected nothing after ']'");
  using namespace std::string_literals;
  expect_rejected("kind,name,work [Mflop],rate [Mflop/s]\0\0,dop\n"s,
                  "'\\u0000\\u0000' (holds U+0000 NULL) after the unit");
}

TEST(SpreadsheetFindings, OperationCountColumnsNameAKernel) {
  expect_rejected("kind,name,work [flop],dop,ops.\ncomponent,A,1,4,5\n", "unknown column 'ops.'");
  expect_rejected("kind,name,work [flop],dop,ops.a\x01\n", "unknown column 'ops.a\\u0001'");
  EXPECT_NO_THROW(
      parse_workload("kind,name,work [flop],dop,ops.fma_chain\ncomponent,A,1,4,5\n", "ops.csv"));
}

TEST(SpreadsheetFindings, AnUnknownKindIsNamedBeforeWhatTheRowLacks) {
  expect_rejected("kind,name\nwidget,\n", "bad.csv:2:1 (kind): unknown kind 'widget'");
}

}  // namespace
}  // namespace sonde::predict
