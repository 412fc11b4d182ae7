// sonde-simgrid-platform: what a SimGrid platform file holds, as JSON, read by SimGrid itself:
// its hosts in rank order (name, cores, speed) and the routes from the first host to itself, to
// the second and to the last (links, summed latency, narrowest bandwidth). `sonde characterize
// --platform` places ranks from it, and the ground-truth checks compare fits with its routes.
#include <smpi/smpi.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

namespace {

namespace sg4 = simgrid::s4u;

// Natural order: node-2 before node-10, as a cluster's radical numbers them.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      const std::string na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

void print_route(const sg4::Host* from, const sg4::Host* to, bool last) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  from->route_to(to, links, &latency);
  double bandwidth = 0;
  std::string names;
  for (const sg4::Link* link : links) {
    bandwidth = bandwidth == 0 ? link->get_bandwidth() : std::min(bandwidth, link->get_bandwidth());
    names += (names.empty() ? "" : ", ") + quoted(link->get_name());
  }
  std::printf(
      "    {\"from\": %s, \"to\": %s, \"latency_seconds\": %.9g, \"bandwidth_bytes_per_second\": "
      "%.9g, \"links\": [%s]}%s\n",
      quoted(from->get_name()).c_str(), quoted(to->get_name()).c_str(), latency, bandwidth,
      names.c_str(), last ? "" : ",");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: sonde-simgrid-platform <platform.xml> [<output.json>]\n");
    return 2;
  }
  if (argc == 3 && std::freopen(argv[2], "w", stdout) == nullptr) {
    std::fprintf(stderr, "sonde-simgrid-platform: cannot write %s\n", argv[2]);
    return 1;
  }
  // SimGrid logs at info level by default: this program's output is JSON only.
  std::vector<char*> args = {argv[0], const_cast<char*>("--log=root.thresh:warning")};
  int count = static_cast<int>(args.size());
  sg4::Engine engine(&count, args.data());
  smpi_init_options();  // the platforms set SMPI's options (smpi/os, ...) in their <config>
  engine.load_platform(argv[1]);
  std::vector<sg4::Host*> hosts = engine.get_all_hosts();
  std::sort(hosts.begin(), hosts.end(), [](const sg4::Host* a, const sg4::Host* b) {
    return natural_less(a->get_name(), b->get_name());
  });
  std::printf("{\n  \"platform\": %s,\n  \"hosts\": [\n", quoted(argv[1]).c_str());
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    std::printf("    {\"name\": %s, \"cores\": %d, \"speed_flops\": %.9g}%s\n",
                quoted(hosts[i]->get_name()).c_str(), hosts[i]->get_core_count(),
                hosts[i]->get_speed(), i + 1 < hosts.size() ? "," : "");
  }
  std::printf("  ],\n  \"routes\": [\n");
  if (!hosts.empty()) {
    std::vector<const sg4::Host*> to = {hosts.front()};
    if (hosts.size() > 1) to.push_back(hosts[1]);
    if (hosts.size() > 2) to.push_back(hosts.back());
    for (std::size_t i = 0; i < to.size(); ++i)
      print_route(hosts.front(), to[i], i + 1 == to.size());
  }
  std::printf("  ]\n}\n");
  return 0;
}
