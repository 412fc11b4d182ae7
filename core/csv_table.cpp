#include "core/csv_table.hpp"

#include <csv.h>
#include <fmt/format.h>

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

}  // namespace

std::vector<CsvRow> parse_csv(const std::string& text, const std::string& file) {
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
    throw Error(ExitCode::failure, file, "libcsv could not start");
  }
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
  return state.rows;
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
