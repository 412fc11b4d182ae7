// CSV as spreadsheets export it, through libcsv: rows that know the line they start on, so that
// every error can name it; and fields quoted for writing.
#pragma once

#include <string>
#include <vector>

namespace sonde {

struct CsvRow {
  std::size_t line = 0;  // where the row starts, from 1
  std::vector<std::string> cells;
};

// Every row of `text` (a quoted field may span lines). Throws an input Error naming `file` and
// the line for text that is not CSV (an unclosed quote, a stray quote).
std::vector<CsvRow> parse_csv(const std::string& text, const std::string& file);

// Without leading and trailing blanks.
std::string trimmed(const std::string& text);

// A row of fields, each quoted where CSV needs it, ending in a newline.
std::string csv_line(const std::vector<std::string>& fields);

}  // namespace sonde
