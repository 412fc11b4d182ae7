// A delay line between two TAP devices: every Ethernet frame that one side sends is handed to the
// other side `delay` microseconds later, in order. The host-file test joins its two
// network-namespace hosts through it where the kernel has no netem qdisc (tc qdisc ... netem),
// so that a known one-way delay on the link must show in the fitted inter-node t0.
//   sonde-test-delay-line <tap a> <tap b> <delay in microseconds>
// Makes the two TAP devices (root, /dev/net/tun), prints "ready" once both exist, and forwards
// until killed. The caller moves each device into its namespace and gives it an address; the
// open descriptors follow the device.
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "delay line: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

int open_tap(const std::string& name) {
  const int fd = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK);
  if (fd < 0) die("open /dev/net/tun");
  ifreq request{};
  request.ifr_flags = IFF_TAP | IFF_NO_PI;
  std::snprintf(request.ifr_name, IFNAMSIZ, "%s", name.c_str());
  if (::ioctl(fd, TUNSETIFF, &request) < 0) die("make TAP device " + name);
  return fd;
}

struct Frame {
  Clock::time_point due;
  std::vector<char> bytes;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: sonde-test-delay-line <tap a> <tap b> <delay in microseconds>\n");
    return 2;
  }
  char* end = nullptr;
  const long micros = std::strtol(argv[3], &end, 10);
  if (end == argv[3] || *end != '\0' || micros < 0) {
    std::fprintf(stderr, "delay line: the delay '%s' is no whole number of microseconds >= 0\n",
                 argv[3]);
    return 2;
  }
  const auto delay = std::chrono::microseconds(micros);
  // Wake when the earliest frame is due, not up to the default 50 us later.
  ::prctl(PR_SET_TIMERSLACK, 1UL);
  const int taps[2] = {open_tap(argv[1]), open_tap(argv[2])};
  std::printf("ready\n");
  std::fflush(stdout);

  std::deque<Frame> queued[2];  // queued[i]: frames to write to taps[i], in arrival order
  std::vector<char> buffer(65536);
  // A timer wakes a sleeping vCPU late (about 75 us a crossing on a 2-core VM): the line sleeps
  // until this long before a frame is due and then polls without sleeping.
  constexpr auto kSpin = std::chrono::microseconds(200);
  for (;;) {
    // Sleep until a frame arrives or shortly before the earliest queued frame is due.
    const Clock::time_point now = Clock::now();
    Clock::time_point next = now + std::chrono::seconds(1);
    for (const auto& queue : queued) {
      if (!queue.empty()) next = std::min(next, queue.front().due - kSpin);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::max(next - now, Clock::duration::zero()));
    const timespec timeout{static_cast<time_t>(wait.count() / 1000000000),
                           static_cast<long>(wait.count() % 1000000000)};
    pollfd fds[2] = {{taps[0], POLLIN, 0}, {taps[1], POLLIN, 0}};
    if (::ppoll(fds, 2, &timeout, nullptr) < 0 && errno != EINTR) die("poll");
    for (int side = 0; side < 2; ++side) {
      if (!(fds[side].revents & POLLIN)) continue;
      for (;;) {
        const ssize_t got = ::read(taps[side], buffer.data(), buffer.size());
        if (got < 0) {
          if (errno == EAGAIN || errno == EWOULDBLOCK) break;
          die("read");
        }
        queued[1 - side].push_back(
            {Clock::now() + delay, std::vector<char>(buffer.begin(), buffer.begin() + got)});
      }
    }
    const Clock::time_point at = Clock::now();
    for (int side = 0; side < 2; ++side) {
      while (!queued[side].empty() && queued[side].front().due <= at) {
        const std::vector<char>& frame = queued[side].front().bytes;
        // A device that is not up yet refuses the frame (EIO): the frame is lost, as on a wire.
        if (::write(taps[side], frame.data(), frame.size()) < 0 && errno != EIO &&
            errno != EAGAIN) {
          die("write");
        }
        queued[side].pop_front();
      }
    }
  }
}
