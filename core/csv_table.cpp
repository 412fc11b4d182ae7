#include "core/csv_table.hpp"

#include <csv.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "core/error.hpp"

namespace sonde {
namespace {

struct CsvState {
  std::vector<CsvRow> rows;
  CsvRow current;
  std::size_t line = 1;
  bool in_row = false;
};

void on_field(void* data, std::size_t length, void* state_ptr) {
  auto* state = static_cast<CsvState*>(state_ptr);
  if (!state->in_row) {
    state->current = CsvRow{state->line, {}};
    state->in_row = true;
  }
  state->current.cells.emplace_back(data ? static_cast<const char*>(data) : "", data ? length : 0);
}

void on_row(int, void* state_ptr) {
  auto* state = static_cast<CsvState*>(state_ptr);
  if (state->in_row) state->rows.push_back(std::move(state->current));
  state->in_row = false;
}

// The text without a leading UTF-8 byte-order mark, with CRLF and CR line ends as LF (inside a
// quoted field too: a line break in a cell is a line break whichever way it was saved).
std::string normalized(const std::string& text) {
  const std::size_t start = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  std::string out;
  out.reserve(text.size() - start);
  for (std::size_t i = start; i < text.size(); ++i) {
    if (text[i] != '\r') {
      out += text[i];
      continue;
    }
    out += '\n';
    if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
  }
  return out;
}

// The header line decides the separator: the first record that is neither blank nor a comment.
// Semicolons and no comma outside quotes: semicolon-separated; anything else: comma-separated.
char separator_of(const std::string& text) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t first = at;
    while (first < text.size() && (text[first] == ' ' || text[first] == '\t')) ++first;
    const bool blank = first >= text.size() || text[first] == '\n';
    const bool comment =
        !blank && (text[first] == '#' ||
                   (text[first] == '"' && first + 1 < text.size() && text[first + 1] == '#'));
    // To the end of the record: a newline outside quotes.
    bool quoted = false;
    std::size_t commas = 0, semicolons = 0;
    for (; at < text.size(); ++at) {
      const char c = text[at];
      if (c == '"') quoted = !quoted;
      if (quoted) continue;
      if (c == '\n') break;
      commas += c == ',';
      semicolons += c == ';';
    }
    ++at;
    if (blank || comment) continue;
    return semicolons > 0 && commas == 0 ? ';' : ',';
  }
  return ',';
}

bool digits(const std::string& text, std::size_t from, std::size_t to) {
  if (from >= to) return false;
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(from),
                     text.begin() + static_cast<std::ptrdiff_t>(to),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

}  // namespace

CsvTable parse_csv_table(const std::string& raw, const std::string& file) {
  const std::string text = normalized(raw);
  if (const std::size_t bad = invalid_utf8_at(text); bad != std::string::npos) {
    const auto line =
        1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
    throw input_error(fmt::format("{}:{}", file, line),
                      fmt::format("byte 0x{:02X} is not UTF-8; save the file as UTF-8 text (a "
                                  "spreadsheet's \"CSV UTF-8\")",
                                  static_cast<unsigned char>(text[bad])));
  }
  CsvTable table;
  table.separator = separator_of(text);
  table.decimal_comma = table.separator == ';';
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
    throw Error(ExitCode::failure, file, "libcsv could not start");
  }
  csv_set_delim(&parser, static_cast<unsigned char>(table.separator));
  CsvState state;
  // Line by line, so that every row knows the line it starts on.
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    if (csv_parse(&parser, text.data() + start, end - start, on_field, on_row, &state) !=
        end - start) {
      const std::string why = csv_strerror(csv_error(&parser));
      csv_free(&parser);
      throw input_error(fmt::format("{}:{}", file, state.line), "not valid CSV: " + why);
    }
    start = end;
    ++state.line;
  }
  if (csv_fini(&parser, on_field, on_row, &state) != 0) {
    const std::string why = csv_strerror(csv_error(&parser));
    csv_free(&parser);
    throw input_error(fmt::format("{}:{}", file, state.line - 1),
                      "not valid CSV at the end of the file: " + why);
  }
  csv_free(&parser);
  table.rows = std::move(state.rows);
  return table;
}

std::vector<CsvRow> parse_csv(const std::string& text, const std::string& file) {
  return parse_csv_table(text, file).rows;
}

std::string numeric_cell(const std::string& cell, const CsvTable& table) {
  if (!table.decimal_comma) return cell;
  const std::string text = trimmed(cell);
  // [+-] digits? , digits ([eE] [+-] digits)?
  std::size_t at = text.size() > 0 && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  const std::size_t comma = text.find(',', at);
  if (comma == std::string::npos) return cell;
  if (comma > at && !digits(text, at, comma)) return cell;
  std::size_t end = text.find_first_of("eE", comma);
  if (end == std::string::npos) end = text.size();
  if (!digits(text, comma + 1, end)) return cell;
  if (end < text.size()) {
    std::size_t exponent = end + 1;
    if (exponent < text.size() && (text[exponent] == '+' || text[exponent] == '-')) ++exponent;
    if (!digits(text, exponent, text.size())) return cell;
  }
  std::string out = text;
  out[comma] = '.';
  return out;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += ',';
    const std::string& field = fields[i];
    if (field.find_first_of(",\"\n\r") == std::string::npos) {
      line += field;
      continue;
    }
    // libcsv's csv_write quotes the field and doubles its quotes.
    std::string quoted(2 * field.size() + 2, '\0');
    quoted.resize(csv_write(quoted.data(), quoted.size(), field.data(), field.size()));
    line += quoted;
  }
  return line + '\n';
}

}  // namespace sonde
