// Counter files as spreadsheet programs save them (a byte-order mark, CRLF, semicolons and decimal
// commas) read as the original does; what cannot be read is refused naming the line and showing
// what cannot be seen. Includes the case fuzzing found (fuzz/regressions/counters).
#include <gtest/gtest.h>

#include <string>

#include "core/atomic_file.hpp"
#include "core/csv_table.hpp"
#include "core/error.hpp"
#include "counters/counter_file.hpp"

namespace sonde::counters {
namespace {

// As a spreadsheet in a locale with a decimal comma saves it: a byte-order mark, CRLF,
// semicolons, "0,00043" for 0.00043.
std::string as_decimal_comma_spreadsheet(const std::string& text) {
  std::string out = "\xEF\xBB\xBF";
  for (const CsvRow& row : parse_csv(text, "counts.csv")) {
    for (std::size_t i = 0; i < row.cells.size(); ++i) {
      std::string cell = row.cells[i];
      const auto point = cell.find('.');
      const bool number =
          !cell.empty() && cell.find_first_not_of("0123456789.e-") == std::string::npos;
      if (number && point != std::string::npos) {
        cell[point] = ',';
      } else if (cell.find_first_of(";,\"") != std::string::npos) {
        cell = "\"" + cell + "\"";
      }
      out += (i > 0 ? ";" : "") + cell;
    }
    out += "\r\n";
  }
  return out;
}

std::string refusal(const std::string& text) {
  try {
    parse_counter_file(text, "bad.csv");
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(CounterFile, ASpreadsheetsExportReadsAsTheOriginal) {
  const std::string original = read_file("examples/sorts/counts/vm-p2/radix-200000.csv");
  const std::string saved = as_decimal_comma_spreadsheet(original);
  ASSERT_NE(saved.find("radix.ss1.count;0;time;0,000"), std::string::npos) << saved;
  const CounterTable a = parse_counter_file(original, "radix-200000.csv");
  const CounterTable b = parse_counter_file(saved, "radix-200000.csv");
  EXPECT_EQ(format_counter_file(a), format_counter_file(b));
  ASSERT_FALSE(b.phases.empty());
  EXPECT_TRUE(b.phases.front().measured_time().has_value());
}

TEST(CounterFile, InvisibleCharactersAreNamed) {
  EXPECT_NE(refusal("size,phase,processor,counter,value\xC2\xA0\n")
                .find("bad.csv:1:5: unknown column 'value\\u00a0' (holds U+00A0 NO-BREAK SPACE)"),
            std::string::npos);
  EXPECT_NE(refusal("size,phase,processor,counter,value\n1000,ss1,0,loads\xE2\x80\x8B,5\n")
                .find("bad.csv:2:4: unknown counter 'loads\\u200b' (holds U+200B ZERO WIDTH "
                      "SPACE)"),
            std::string::npos);
}

// fuzz/regressions/counters/source-not-utf8.csv: a byte that is not UTF-8 (a Latin-1 export) was
// read into the table and written back as it was.
TEST(CounterFile, TextThatIsNotUtf8IsRefused) {
  EXPECT_EQ(refusal("size,phase,processor,counter,value,source\n1000,ss1,0,loads,5,ca\xD1lgrind\n"),
            "bad.csv:2: byte 0xD1 is not UTF-8; save the file as UTF-8 text (a spreadsheet's "
            "\"CSV UTF-8\")");
}

}  // namespace
}  // namespace sonde::counters
