// CSV as spreadsheet programs save it: a byte-order mark, CRLF or CR line ends, semicolons and
// decimal commas where the header line says so; and messages that show what cannot be seen.
#include "core/csv_table.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace sonde {
namespace {

// "CSV UTF-8" of a common spreadsheet program: a byte-order mark and CRLF line ends.
std::string as_spreadsheet_saves_it(const std::string& text) {
  std::string out = "\xEF\xBB\xBF";
  for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

void expect_same_rows(const CsvTable& a, const CsvTable& b) {
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    EXPECT_EQ(a.rows[i].line, b.rows[i].line) << "row " << i;
    EXPECT_EQ(a.rows[i].cells, b.rows[i].cells) << "row " << i;
  }
}

TEST(CsvTable, ByteOrderMarkAndCrlfReadAsTheOriginal) {
  const std::string original = read_file("examples/stap/apt.csv");
  const CsvTable plain = parse_csv_table(original, "apt.csv");
  const CsvTable saved = parse_csv_table(as_spreadsheet_saves_it(original), "apt.csv");
  expect_same_rows(plain, saved);
  EXPECT_EQ(saved.separator, ',');
  EXPECT_FALSE(saved.decimal_comma);
  EXPECT_EQ(saved.rows.front().cells.front(), "kind");  // not "\xEF\xBB\xBFkind"
  // Old Mac line ends (CR alone) are line ends too, and lines are counted across them.
  const CsvTable cr = parse_csv_table("a,b\rc,d\r\re,f", "cr.csv");
  ASSERT_EQ(cr.rows.size(), 3u);
  EXPECT_EQ(cr.rows[2].line, 4u);
  EXPECT_EQ(cr.rows[2].cells, (std::vector<std::string>{"e", "f"}));
}

TEST(CsvTable, TheHeaderLineDecidesOnSemicolonsAndDecimalCommas) {
  const CsvTable table = parse_csv_table(
      "\"# made by hand, in a decimal-comma locale\";;\r\n"
      "kind;name;value\r\n"
      "parameter;N;1,5\r\n"
      "parameter;M;\"min(n, 4)\"\r\n",
      "semicolons.csv");
  EXPECT_EQ(table.separator, ';');
  EXPECT_TRUE(table.decimal_comma);
  ASSERT_EQ(table.rows.size(), 4u);
  EXPECT_EQ(table.rows[1].cells, (std::vector<std::string>{"kind", "name", "value"}));
  EXPECT_EQ(table.rows[2].cells[2], "1,5");
  EXPECT_EQ(numeric_cell(table.rows[2].cells[2], table), "1.5");
  // Only a cell that is one number has its comma read as a decimal point.
  EXPECT_EQ(numeric_cell(table.rows[3].cells[2], table), "min(n, 4)");
  EXPECT_EQ(numeric_cell("-0,25", table), "-0.25");
  EXPECT_EQ(numeric_cell(" 1,5E+06 ", table), "1.5E+06");
  EXPECT_EQ(numeric_cell(",5", table), ".5");
  EXPECT_EQ(numeric_cell("1.234,5", table), "1.234,5");  // thousands separators: not guessed at
  EXPECT_EQ(numeric_cell("1,2,3", table), "1,2,3");
  EXPECT_EQ(numeric_cell("4.12", table), "4.12");
  // An unquoted comment line before the header does not decide.
  EXPECT_EQ(parse_csv_table("# by hand, v2\nsize;phase\n", "c.csv").separator, ';');
  // A comma inside quotes does not count; a semicolon inside quotes neither.
  EXPECT_EQ(parse_csv_table("\"a,b\";c\n", "q.csv").separator, ';');
  EXPECT_EQ(parse_csv_table("\"a;b\",c\n", "q.csv").separator, ',');
}

TEST(CsvTable, ACommaSeparatedFileIsNeverGuessedAt) {
  const CsvTable table = parse_csv_table("kind,name,value\nparameter,N,\"1,5\"\n", "commas.csv");
  EXPECT_EQ(table.separator, ',');
  EXPECT_FALSE(table.decimal_comma);
  EXPECT_EQ(numeric_cell(table.rows[1].cells[2], table), "1,5");
  // Semicolons and commas in the header: comma-separated, the semicolon is part of a name.
  const CsvTable both = parse_csv_table("a;b,c\n1;2,3\n", "both.csv");
  EXPECT_EQ(both.separator, ',');
  EXPECT_EQ(both.rows[1].cells, (std::vector<std::string>{"1;2", "3"}));
}

TEST(CsvTable, TextThatIsNotUtf8IsRefusedWithItsLine) {
  try {
    parse_csv_table("kind,name\r\ncomponent,D\xE4mpfung\r\n", "latin1.csv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "latin1.csv:2: byte 0xE4 is not UTF-8; save the file as UTF-8 text (a "
              "spreadsheet's \"CSV UTF-8\")");
  }
}

TEST(Messages, ShowWhatCannotBeSeen) {
  EXPECT_EQ(shown("kind"), "'kind'");
  EXPECT_EQ(shown("\xC2\xA0kind"), "'\\u00a0kind' (holds U+00A0 NO-BREAK SPACE)");
  EXPECT_EQ(shown("\xEF\xBB\xBFkind"),
            "'\\ufeffkind' (holds U+FEFF ZERO WIDTH NO-BREAK SPACE (a byte-order mark))");
  EXPECT_EQ(shown("ki\tnd\xE2\x80\x8B"),
            "'ki\\u0009nd\\u200b' (holds U+0009 CHARACTER TABULATION, U+200B ZERO WIDTH SPACE)");
  EXPECT_EQ(shown(std::string("a\0b\x01", 4)),
            "'a\\u0000b\\u0001' (holds U+0000 NULL, U+0001 control character)");
  EXPECT_EQ(shown("\xB5s"), "'\\xb5s' (holds byte 0xB5, which is not UTF-8)");
  EXPECT_EQ(shown("\xC2"), "'\\xc2' (holds byte 0xC2, which is not UTF-8)");  // cut short
  EXPECT_EQ(shown("\xC0\xAF"),                                                // an overlong '/'
            "'\\xc0\\xaf' (holds byte 0xC0, which is not UTF-8, byte 0xAF, which is not UTF-8)");
  EXPECT_EQ(shown("\xC2\xB5s, 5 \xE2\x80\x93 6"), "'\xC2\xB5s, 5 \xE2\x80\x93 6'");  // visible
  EXPECT_EQ(invalid_utf8_at("ok \xE2\x80\x93 \xB5"), 7u);
  EXPECT_EQ(invalid_utf8_at("ok \xE2\x80\x93"), std::string_view::npos);
}

TEST(Messages, AnErrorPrintsWholeAndShowsWhatItQuotes) {
  // A NUL would end the message where it is printed; a tab or an escape would act on the screen.
  using namespace std::string_literals;
  const Error e = input_error("x.csv:3", "unknown counter 'lo\0ads\x1B[2J'"s);
  EXPECT_EQ(std::string(e.what()),
            "x.csv:3: unknown counter 'lo\\u0000ads\\u001b[2J' (holds U+0000 NULL, U+001B "
            "ESCAPE)");
  EXPECT_EQ(e.where(), "x.csv:3");
}

}  // namespace
}  // namespace sonde
