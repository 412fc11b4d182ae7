// One error type for the whole of sonde: it says where (a file, a line, a key, an option) and
// what was expected, and it knows which exit code the command line should give.
#pragma once

#include <stdexcept>
#include <string>

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

 private:
  ExitCode code_;
  std::string where_;
};

// Shorthands for the common kinds.
Error usage_error(std::string option, const std::string& what);
Error input_error(std::string where, const std::string& what);
Error io_error(std::string where, const std::string& what);

}  // namespace sonde
