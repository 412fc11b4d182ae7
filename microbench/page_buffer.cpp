#include "microbench/page_buffer.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/error.hpp"

namespace sonde::microbench {

std::string_view name_of(PagePolicy policy) { return policy == PagePolicy::huge ? "huge" : "base"; }

std::size_t base_page_bytes() { return static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)); }

std::size_t huge_page_bytes() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
  std::size_t bytes = 0;
  if (in >> bytes) return bytes;
  return 0;
}

std::string transparent_huge_page_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(in, line)) return "unavailable";
  const auto open = line.find('[');
  const auto close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "unavailable";
  return line.substr(open + 1, close - open - 1);
}

bool huge_pages_available() {
  const std::string mode = transparent_huge_page_mode();
  return (mode == "always" || mode == "madvise") && huge_page_bytes() > 0;
}

PageBuffer::PageBuffer(std::size_t bytes, PagePolicy policy) : policy_(policy) {
  const std::size_t page = base_page_bytes();
  const std::size_t align = policy == PagePolicy::huge ? huge_page_bytes() : page;
  if (policy == PagePolicy::huge && align == 0) {
    throw io_error("huge pages", "this system has no transparent huge pages");
  }
  bytes_ = (std::max<std::size_t>(bytes, 1) + page - 1) / page * page;
  mapping_bytes_ = bytes_ + align;
  mapping_ =
      ::mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw io_error("memory",
                   fmt::format("cannot map {} bytes: {}", mapping_bytes_, std::strerror(errno)));
  }
  const auto address = reinterpret_cast<std::uintptr_t>(mapping_);
  data_ = reinterpret_cast<void*>((address + align - 1) / align * align);
  const int advice = policy == PagePolicy::huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;
  // Without the advice the base-page variant could silently get huge pages where THP is "always".
  if (::madvise(data_, bytes_, advice) != 0 && policy == PagePolicy::huge) {
    const std::string reason = std::strerror(errno);
    release();
    throw io_error("huge pages", "madvise(MADV_HUGEPAGE) failed: " + reason);
  }
}

PageBuffer::PageBuffer(PageBuffer&& other) noexcept { *this = std::move(other); }

PageBuffer& PageBuffer::operator=(PageBuffer&& other) noexcept {
  if (this != &other) {
    release();
    mapping_ = std::exchange(other.mapping_, nullptr);
    mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    policy_ = other.policy_;
  }
  return *this;
}

PageBuffer::~PageBuffer() { release(); }

void PageBuffer::release() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_bytes_);
  mapping_ = nullptr;
  data_ = nullptr;
  bytes_ = 0;
}

double PageBuffer::huge_page_fraction() const {
  if (data_ == nullptr) return 0;
  std::ifstream smaps("/proc/self/smaps");
  const auto address = reinterpret_cast<std::uintptr_t>(data_);
  std::string line;
  bool inside = false;
  double size_kib = 0;
  while (std::getline(smaps, line)) {
    // A mapping's header line is "start-end perms ...", its fields "Name: value kB".
    std::uintptr_t start = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    if (header >> std::hex >> start >> dash >> end && dash == '-') {
      inside = start <= address && address < end;
      continue;
    }
    if (!inside) continue;
    std::istringstream field(line);
    std::string name;
    double kib = 0;
    field >> name >> kib;
    if (name == "Size:") size_kib = kib;
    if (name == "AnonHugePages:") return size_kib > 0 ? std::min(1.0, kib / size_kib) : 0;
  }
  return 0;
}

}  // namespace sonde::microbench
