// CSV as spreadsheets export it, through libcsv: rows that know the line they start on, so that
// every error can name it; and fields quoted for writing.
//
// What spreadsheet programs write is read as they mean it: a UTF-8 byte-order mark at the start
// ("CSV UTF-8") is dropped; CRLF and CR line ends are line ends; and a file whose header line has
// semicolons and no comma outside quotes (the export of a locale with a decimal comma) is
// semicolon-separated, its numeric cells may have a decimal comma ("1,5" for 1.5). A
// comma-separated file is never guessed at: "1,5" there is not a number.
#pragma once

#include <string>
#include <vector>

namespace sonde {

struct CsvRow {
  std::size_t line = 0;  // where the row starts, from 1
  std::vector<std::string> cells;
};

struct CsvTable {
  std::vector<CsvRow> rows;
  char separator = ',';
  bool decimal_comma = false;  // a semicolon-separated file: "1,5" in a numeric cell is 1.5
};

// Every row of `text` (a quoted field may span lines), its separator found from the header line:
// the first line that is neither blank nor a comment ('#', quoted or not). Throws an input Error
// naming `file` and the line for text that is not UTF-8 or not CSV (an unclosed quote, a stray
// quote).
CsvTable parse_csv_table(const std::string& text, const std::string& file);
std::vector<CsvRow> parse_csv(const std::string& text, const std::string& file);

// A numeric cell as number parsers take it: in a table with decimal commas, a cell that is one
// number written with a decimal comma ("1,5", "-0,25", "1,5E+06") has a decimal point instead;
// any other cell, and every cell of a comma-separated table, is returned as it is.
std::string numeric_cell(const std::string& cell, const CsvTable& table);

// Without leading and trailing blanks.
std::string trimmed(const std::string& text);

// A row of fields, each quoted where CSV needs it, ending in a newline.
std::string csv_line(const std::vector<std::string>& fields);

}  // namespace sonde
