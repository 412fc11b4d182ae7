// sonde-test-result-checks: what the suites' smoke tests check in a quick run's result file, read
// once. (CMake's string(JSON) parses the whole file at every call: over the memory suite's 640
// entries of 1.1 MB the same checks took over a minute of each test run.)
//   sonde-test-result-checks RESULT.json MISSING_EVENT KEY EXPECTED[,EXPECTED...] [REQUIRED...]
// Every entry has params.KEY and each EXPECTED value appears among them; every entry has each
// REQUIRED params member too. Every entry says where its counts come from (params.counts.derived);
// none has a PAPI count when nothing was measured; an entry whose pattern is known has derived
// counts (derived.*), and one without a pattern has none; the event asked for but absent
// (MISSING_EVENT, asked for as loads) is reported missing by name. Exit 0 with a summary line, or
// 1 with the first violation.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

// A parameter's value as the test names it: a string as is, a number or flag as JSON prints it.
std::string as_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

int fail(const std::string& message) {
  std::cerr << "result checks: " << message << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    return fail(
        "usage: sonde-test-result-checks RESULT.json MISSING_EVENT KEY EXPECTED[,...] "
        "[REQUIRED...]");
  }
  const std::string path = argv[1], missing_event = argv[2], key = argv[3];
  const std::vector<std::string> expected = split(argv[4]);
  const std::vector<std::string> required(argv + 5, argv + argc);
  std::ifstream file(path);
  nlohmann::json result;
  try {
    result = nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception& e) {
    return fail(fmt::format("{} is not JSON: {}", path, e.what()));
  }
  using pointer = nlohmann::json::json_pointer;
  const std::string measured =
      result.value(pointer("/context/sonde/counters/measured"), std::string());
  const std::string why =
      result.value(pointer("/context/sonde/counters/missing/loads"), std::string());
  if (why.find(missing_event) == std::string::npos) {
    return fail(fmt::format("the missing event {} is not reported: '{}'", missing_event, why));
  }
  const nlohmann::json entries = result.value("benchmarks", nlohmann::json::array());
  if (!entries.is_array() || entries.empty()) return fail("no benchmarks in " + path);
  std::set<std::string> seen;
  std::size_t derived_entries = 0;
  for (const nlohmann::json& entry : entries) {
    const std::string name = entry.value("name", "?");
    const nlohmann::json params = entry.value("params", nlohmann::json());
    if (!params.is_object()) return fail(fmt::format("benchmark {} has no params", name));
    if (!params.contains(key)) return fail(fmt::format("benchmark {} has no params.{}", name, key));
    seen.insert(as_text(params.at(key)));
    for (const std::string& member : required) {
      if (!params.contains(member))
        return fail(fmt::format("benchmark {} has no params.{}", name, member));
    }
    if (!params.contains(pointer("/counts/derived"))) {
      return fail(fmt::format("benchmark {} has no params.counts", name));
    }
    bool has_derived = false;
    for (const auto& [member, value] : entry.items()) {
      if (member.rfind("derived.", 0) == 0) has_derived = true;
      if (member.rfind("papi.", 0) == 0 && measured == "none") {
        return fail(fmt::format("benchmark {} has {} though nothing was measured", name, member));
      }
    }
    const bool pattern = params.at(pointer("/counts/derived")).is_object();
    const bool error_occurred = entry.value("error_occurred", false);
    if (pattern && !has_derived && !error_occurred) {
      return fail(fmt::format("benchmark {} has a known pattern but no derived counts", name));
    }
    if (!pattern && has_derived) {
      return fail(fmt::format("benchmark {} has derived counts without a pattern", name));
    }
    if (has_derived) ++derived_entries;
  }
  for (const std::string& value : expected) {
    if (!seen.count(value)) {
      return fail(
          fmt::format("no benchmark with {} = {} (seen: {})", key, value, fmt::join(seen, ", ")));
    }
  }
  fmt::print("{} entries; {} ok; counts: measured {}; {} of {} entries derived\n", entries.size(),
             key, measured, derived_entries, entries.size());
  return 0;
}
