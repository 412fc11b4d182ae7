#include "core/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sonde {
namespace {

std::string system_reason() { return std::strerror(errno); }

void create_folders(const std::filesystem::path& folder) {
  if (folder.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw io_error(folder.string(), "cannot create the folder: " + ec.message());
  if (!std::filesystem::is_directory(folder, ec)) {
    throw io_error(folder.string(), "exists but is not a folder");
  }
}

// A file descriptor that closes itself, and removes its temporary file unless told to keep it.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::filesystem::path& target) {
    std::string pattern = target.string() + ".tmp.XXXXXX";
    name_.assign(pattern.begin(), pattern.end());
    name_.push_back('\0');
    fd_ = ::mkstemp(name_.data());
    if (fd_ < 0)
      throw io_error(target.string(), "cannot create a temporary file: " + system_reason());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!kept_) ::unlink(name_.data());
  }
  int fd() const { return fd_; }
  const char* name() const { return name_.data(); }
  void close_and_keep() {
    kept_ = true;
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) kept_ = false;
  }

 private:
  std::vector<char> name_;
  int fd_ = -1;
  bool kept_ = false;
};

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path folder = path.parent_path();
  create_folders(folder);
  TemporaryFile temporary(path);
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(temporary.fd(), content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw io_error(path.string(), "cannot write: " + system_reason());
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(temporary.fd()) != 0)
    throw io_error(path.string(), "cannot flush: " + system_reason());
  // Results are read by others: the usual mode for a new file rather than mkstemp's 0600.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(temporary.fd(), 0666 & ~mask);
  temporary.close_and_keep();
  if (::rename(temporary.name(), path.c_str()) != 0) {
    const std::string reason = system_reason();
    ::unlink(temporary.name());
    throw io_error(path.string(), "cannot rename the temporary file into place: " + reason);
  }
  // The rename itself must reach the disk for the file to survive a crash.
  const int folder_fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (folder_fd >= 0) {
    ::fsync(folder_fd);
    ::close(folder_fd);
  }
}

void ensure_writable_folder(const std::filesystem::path& folder) {
  create_folders(folder);
  // An unnamed file (O_TMPFILE): nothing to remove, so a signal that ends the process here leaves
  // nothing behind (a named probe did, when an interrupt landed between its creation and removal).
  // File systems without unnamed files are asked by access(2), which sees a read-only mount too.
  const int fd = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return;
  }
  const bool no_unnamed_files = errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL;
  if (no_unnamed_files && ::access(folder.c_str(), W_OK | X_OK) == 0) return;
  throw io_error(folder.string(), "cannot create a file in the folder: " + system_reason());
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path.string(), "cannot open the file: " + system_reason());
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw input_error(path.string(), "cannot read the file: " + system_reason());
  return content.str();
}

}  // namespace sonde
