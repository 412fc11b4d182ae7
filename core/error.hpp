// One error type for the whole of sonde: it says where (a file, a line, a key, an option) and
// what was expected, and it knows which exit code the command line should give.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace sonde {

// Exit codes of every sonde program, so that scripts can tell a bad call from a failed run.
enum class ExitCode : int {
  ok = 0,
  failure = 1,       // a measurement or an I/O operation failed
  usage = 2,         // bad options on the command line
  bad_input = 3,     // a file that sonde reads is malformed or lacks what is needed
  interrupted = 130  // stopped by a signal; what was finished is kept
};

class Error : public std::runtime_error {
 public:
  // `where` names the place (a path, "path:line", "path: key 'a.b'", "--option"); `what` says the
  // problem and what was expected. what() is "where: what".
  Error(ExitCode code, std::string where, const std::string& what);

  ExitCode code() const { return code_; }
  const std::string& where() const { return where_; }
  // The problem alone, without the place: for a caller that names the place better.
  const std::string& problem() const { return problem_; }

 private:
  ExitCode code_;
  std::string where_;
  std::string problem_;
};

// Shorthands for the common kinds.
Error usage_error(std::string option, const std::string& what);
Error input_error(std::string where, const std::string& what);
Error io_error(std::string where, const std::string& what);

// A value from a file quoted for a message, with what cannot be seen written out and named:
// "'\u00a0kind' (holds U+00A0 NO-BREAK SPACE)". Written out: control characters (tabs, line ends,
// NUL), no-break, zero-width and other unusual spaces, byte-order marks, soft hyphens and direction
// marks as \uXXXX; bytes that are not UTF-8 as \xNN. Visible text is only quoted: "'kind'".
std::string shown(std::string_view text);
// The same without the quotes, the names at the end. Every Error's message goes through it, so
// that no message hides or breaks on what it quotes (a NUL would end it).
std::string visible(std::string_view text);
// The offset of the first byte of `text` that is not UTF-8, or npos.
std::size_t invalid_utf8_at(std::string_view text);

}  // namespace sonde
