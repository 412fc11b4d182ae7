// The exports against their formats' documented grammars, golden files of fixed profiles, and
// round trips: each file read back gives the profile's numbers. SONDE_UPDATE_GOLDEN=1 rewrites the
// golden files (export/tests/golden/) instead of comparing; review the difference before
// committing it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "export/export.hpp"

namespace fs = std::filesystem;
using namespace sonde;
using namespace sonde::exports;

namespace {

const fs::path kSource = SONDE_SOURCE_DIR;
const fs::path kFixtures = kSource / "export/tests/fixtures";
const fs::path kGolden = kSource / "export/tests/golden";

std::string fixture() { return (kFixtures / "cluster.yaml").string(); }
std::string machine(const std::string& name) { return (kSource / "machines" / name).string(); }

// The file names a profile's path as given; the goldens are made from paths relative to the
// repository root, as a user in the root would give them.
std::string relative(const std::string& path) {
  return fs::relative(path, kSource).generic_string();
}

void expect_golden(const std::string& name, const std::string& text) {
  const fs::path path = kGolden / name;
  if (std::getenv("SONDE_UPDATE_GOLDEN")) {
    write_file_atomically(path, text);
    return;
  }
  ASSERT_TRUE(fs::exists(path)) << path << " is missing; SONDE_UPDATE_GOLDEN=1 writes it";
  EXPECT_EQ(read_file(path), text)
      << "differs from " << path << "; SONDE_UPDATE_GOLDEN=1 rewrites it";
}

profile::Profile read(const std::string& path) { return profile::read_profile(path); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// Roofline

// ERT's roofline.json as ert_core.py's build_database makes it.
void check_roofline_shape(const std::string& text) {
  const nlohmann::json root = nlohmann::json::parse(text);
  ASSERT_TRUE(root.is_object());
  for (const char* part : {"empirical", "spec"}) ASSERT_TRUE(root.contains(part)) << part;
  ASSERT_TRUE(root["empirical"]["metadata"].is_object());
  for (const char* kind : {"gflops", "gbytes"}) {
    const nlohmann::json& node = root["empirical"][kind];
    ASSERT_TRUE(node["metadata"].is_object()) << kind;
    ASSERT_TRUE(node["data"].is_array()) << kind;
    ASSERT_FALSE(node["data"].empty()) << kind;
    for (const auto& entry : node["data"]) {
      ASSERT_TRUE(entry.is_array() && entry.size() == 2) << entry;
      EXPECT_TRUE(entry[0].is_string()) << entry;
      EXPECT_TRUE(entry[1].is_number()) << entry;
      EXPECT_GT(entry[1].get<double>(), 0) << entry;
    }
    EXPECT_TRUE(root["spec"][kind]["data"].is_array()) << kind;
  }
  EXPECT_EQ(root["empirical"]["gflops"]["data"].size(), 1u);
  EXPECT_EQ(root["empirical"]["gflops"]["data"][0][0], "GFLOPs");
}

TEST(Roofline, FixtureGoldenShapeAndRoundTrip) {
  const std::string text = roofline_json(read(fixture()), relative(fixture()));
  expect_golden("cluster.roofline.json", text);
  check_roofline_shape(text);
  const Roofline back = read_roofline_json(text, "cluster.roofline.json");
  EXPECT_DOUBLE_EQ(back.gflops, 150);  // peak per node, 1.5e11 flop/s
  ASSERT_EQ(back.gbytes.size(), 3u);   // L3 has no bandwidth
  EXPECT_EQ(back.gbytes[0].first, "L1d");
  EXPECT_DOUBLE_EQ(back.gbytes[0].second, 800);  // triad with the most threads, not copy/8
  EXPECT_EQ(back.gbytes[1].first, "L2");
  EXPECT_DOUBLE_EQ(back.gbytes[1].second, 400);  // no triad: read with the most threads
  EXPECT_EQ(back.gbytes[2].first, "DRAM");
  EXPECT_DOUBLE_EQ(back.gbytes[2].second, 100);
  EXPECT_NE(text.find("memory level L3: no bandwidth measured"), std::string::npos);
}

TEST(Roofline, MeasuredProfileRoundTrip) {
  const std::string path = machine("epyc-vm.yaml");
  const profile::Profile profile = read(path);
  const std::string text = roofline_json(profile, relative(path));
  expect_golden("epyc-vm.roofline.json", text);
  check_roofline_shape(text);
  const Roofline back = read_roofline_json(text, "epyc-vm");
  EXPECT_DOUBLE_EQ(back.gflops * 1e9, profile.compute.peak_flops_per_node->value);
  ASSERT_EQ(back.gbytes.size(), profile.memory.size());
  for (std::size_t i = 0; i < profile.memory.size(); ++i) {
    EXPECT_EQ(back.gbytes[i].first, profile.memory[i].name);
    EXPECT_DOUBLE_EQ(back.gbytes[i].second * 1e9, profile.memory[i].bandwidth.at("triad/2").value);
  }
}

TEST(Roofline, ProfileWithoutWhatItNeedsNamesFileAndKey) {
  const std::string message =
      error_of([] { roofline_json(read(machine("cm-5.yaml")), "machines/cm-5.yaml"); });
  EXPECT_NE(message.find("machines/cm-5.yaml"), std::string::npos) << message;
  EXPECT_NE(message.find("memory[*].bandwidth: absent"), std::string::npos) << message;
  // The SGI Power Challenge has a bandwidth (its shared bus) but no peak rate.
  const std::string sgi = error_of(
      [] { roofline_json(read(machine("sgi-power-challenge.yaml")), "machines/sgi.yaml"); });
  EXPECT_NE(sgi.find("machines/sgi.yaml: compute.peak_flops_per_node: absent"), std::string::npos)
      << sgi;
  // With a peak added, its one bandwidth (key "bus", no kernel/threads) is taken, and named.
  profile::Profile with_peak = read(machine("sgi-power-challenge.yaml"));
  profile::Quantity peak;
  peak.value = 3.1e9;
  peak.unit = "flop/s";
  with_peak.compute.peak_flops_per_node = peak;
  const std::string text = roofline_json(with_peak, "sgi");
  check_roofline_shape(text);
  EXPECT_NE(text.find("bandwidth.bus"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Dimemas

// The records as Dimemas' new_configuration.c reads them: a header line, "//" comments, records
// `"<name>" {<fields>};;` with the documented number of fields, strings quoted.
void check_dimemas_grammar(const std::string& text) {
  const std::map<std::string, std::size_t> fields = {{"wide area network information", 7},
                                                     {"environment information", 7},
                                                     {"multi node information", 14},
                                                     {"predefined mapping information", 1},
                                                     {"configuration files", 4}};
  const std::regex record(R"re(^"([a-z ]+)" \{(.*)\};;$)re");
  const std::vector<std::string> lines = lines_of(text);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "#DIMEMAS_CONFIGURATION");
  std::set<std::string> seen;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty()) continue;
    if (line.rfind("//", 0) == 0) {
      EXPECT_EQ(line.find("/*"), std::string::npos) << line;
      continue;
    }
    EXPECT_EQ(line.find("//"), std::string::npos) << "a record holding // reads as a comment";
    std::smatch match;
    ASSERT_TRUE(std::regex_match(line, match, record)) << line;
    const std::string name = match[1];
    ASSERT_TRUE(fields.count(name)) << name;
    seen.insert(name);
    const std::string body = match[2];
    EXPECT_EQ(static_cast<std::size_t>(std::count(body.begin(), body.end(), ',')) + 1,
              fields.at(name))
        << line;
  }
  EXPECT_TRUE(seen.count("environment information"));
  EXPECT_TRUE(seen.count("multi node information"));
}

TEST(Dimemas, FixtureGoldenGrammarAndRoundTrip) {
  const profile::Profile profile = read(fixture());
  const std::string text = dimemas_cfg(profile, relative(fixture()));
  expect_golden("cluster.cfg", text);
  check_dimemas_grammar(text);
  const DimemasConfig back = read_dimemas_cfg(text, "cluster.cfg");
  EXPECT_EQ(back.machine_name, "test-cluster");
  EXPECT_EQ(back.nodes, 4);
  EXPECT_EQ(back.processors_per_node, 8);
  EXPECT_DOUBLE_EQ(back.speed_ratio, 1.0);
  // Several nodes of several cores: the ping-pong is taken as inter-node, intra-node unmeasured.
  EXPECT_DOUBLE_EQ(back.inter_latency_seconds, 1.5e-6);
  EXPECT_DOUBLE_EQ(back.inter_bandwidth_mbps * 1048576, 1.0e10);
  EXPECT_EQ(back.intra_latency_seconds, 0);
  EXPECT_EQ(back.intra_bandwidth_mbps, 0);
  EXPECT_NE(text.find("NOT MEASURED"), std::string::npos);
  EXPECT_EQ(back.collective_model, 3);  // the broadcast's t0 grows as log n
}

TEST(Dimemas, OneNodeIsIntraNodeAndReferenceGivesSpeedRatio) {
  const std::string path = machine("epyc-vm.yaml");
  const profile::Profile profile = read(path);
  const profile::Profile sp2 = read(machine("ibm-sp2.yaml"));
  const std::string text = dimemas_cfg(profile, relative(path), &sp2, "machines/ibm-sp2.yaml");
  expect_golden("epyc-vm.cfg", text);
  check_dimemas_grammar(text);
  const DimemasConfig back = read_dimemas_cfg(text, "epyc-vm.cfg");
  EXPECT_EQ(back.nodes, 1);
  EXPECT_EQ(back.processors_per_node, 2);
  const auto& segments = profile.point_to_point->segments;
  EXPECT_DOUBLE_EQ(back.intra_latency_seconds, segments.front().t0.value);
  EXPECT_DOUBLE_EQ(back.intra_bandwidth_mbps * 1048576, segments.back().r_inf.value);
  EXPECT_EQ(back.inter_latency_seconds, 0);
  EXPECT_DOUBLE_EQ(back.speed_ratio, profile.compute.peak_flops_per_core->value /
                                         sp2.compute.peak_flops_per_core->value);
  EXPECT_EQ(back.collective_model, 1);  // no form in n: not measured, said so
  EXPECT_NE(text.find("the collective model: no form in n"), std::string::npos);
}

TEST(Dimemas, OneProcessorPerNodeIsInterNode) {
  const profile::Profile sp2 = read(machine("ibm-sp2.yaml"));
  const DimemasConfig back = read_dimemas_cfg(dimemas_cfg(sp2, "sp2"), "sp2.cfg");
  EXPECT_EQ(back.nodes, 256);
  EXPECT_DOUBLE_EQ(back.inter_latency_seconds, 46e-6);
  EXPECT_DOUBLE_EQ(back.inter_bandwidth_mbps * 1048576,
                   sp2.point_to_point->segments[0].r_inf.value);
  EXPECT_EQ(back.intra_latency_seconds, 0);
  EXPECT_EQ(back.collective_model, 3);  // Table 5: broadcast 52 log n us

  // The fastest-growing term decides, whatever the order of the terms.
  profile::Profile linear = sp2;
  profile::Term n;
  n.basis = "n";
  n.coefficient = 1e-6;
  linear.collectives.at("broadcast")
      .t0.terms.insert(linear.collectives.at("broadcast").t0.terms.begin(), n);
  EXPECT_EQ(read_dimemas_cfg(dimemas_cfg(linear, "sp2"), "sp2.cfg").collective_model, 2);
}

TEST(Dimemas, ProfileWithoutNodesNamesFileAndKey) {
  const std::string message =
      error_of([] { dimemas_cfg(read(machine("cm-5.yaml")), "machines/cm-5.yaml"); });
  EXPECT_NE(message.find("machines/cm-5.yaml: machine.nodes: absent"), std::string::npos)
      << message;
  const std::string no_p2p = error_of([] {
    dimemas_cfg(read(machine("sgi-power-challenge.yaml")), "machines/sgi-power-challenge.yaml");
  });
  EXPECT_NE(no_p2p.find("machines/sgi-power-challenge.yaml"), std::string::npos) << no_p2p;
  EXPECT_NE(no_p2p.find("point_to_point"), std::string::npos) << no_p2p;
}

TEST(SimGrid, SegmentsBecomeFactorsAndNodesACluster) {
  // cluster.yaml: 4 nodes of 8 cores; 1.5 us and 2 GB/s to 8 KiB, 6 us and 10 GB/s from 16 KiB.
  const std::string text = simgrid_platform(read(fixture()), "cluster.yaml");
  EXPECT_NE(text.find("<platform version=\"4.1\">"), std::string::npos) << text;
  // L = 1.5 us, B = 10 GB/s; the second segment from midway (12288 B) plus 8.
  EXPECT_NE(text.find("value=\"0:1;12296:4\""), std::string::npos) << text;
  EXPECT_NE(text.find("value=\"0:0.2;12296:1\""), std::string::npos) << text;
  EXPECT_NE(text.find("radical=\"0-3\" core=\"8\""), std::string::npos) << text;
  EXPECT_NE(text.find("bw=\"10000000000Bps\" lat=\"7.5e-07s\""), std::string::npos) << text;
  // An XML comment holds no "--" and the header says what was left out.
  const std::size_t open = text.find("<!--"), close = text.find("-->");
  ASSERT_LT(open, close);
  EXPECT_EQ(text.substr(open + 4, close - open - 4).find("--"), std::string::npos);
  EXPECT_NE(text.find("Not expressed:"), std::string::npos);
  const std::string message = error_of(
      [] { simgrid_platform(read(machine("sgi-power-challenge.yaml")), "machines/sgi.yaml"); });
  EXPECT_NE(message.find("machines/sgi.yaml"), std::string::npos) << message;
  EXPECT_NE(message.find("point_to_point"), std::string::npos) << message;
}

TEST(Dimemas, ReaderRefusesWhatDimemasWouldRefuse) {
  const std::string good = dimemas_cfg(read(fixture()), "cluster");
  std::string fewer = good;
  fewer.replace(fewer.find("1, 1, 0.0};;"), 12, "1, 1};;");
  EXPECT_NE(error_of([&] { read_dimemas_cfg(fewer, "x.cfg"); }).find("has 13 fields"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              read_dimemas_cfg("SDDFA\n\"nodes\" {1};;\n", "y.cfg");
            }).find("y.cfg:2: unknown record"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_dimemas_cfg("hello\n", "z.cfg"); }).find("header"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// LogGOPSim

// Comment lines and one command line: LogGOPSim, then -X <int> pairs of its documented options.
void check_loggopsim_grammar(const std::string& text) {
  const std::regex command(R"(^LogGOPSim( -[LogGOS] [0-9]+)+ "\$@"$)");
  int commands = 0;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("#", 0) == 0) continue;
    EXPECT_TRUE(std::regex_match(line, command)) << line;
    ++commands;
  }
  EXPECT_EQ(commands, 1);
}

TEST(LogGOPSim, FixtureGoldenGrammarAndRoundTrip) {
  const std::string text = loggopsim_command(read(fixture()), relative(fixture()));
  expect_golden("cluster.loggopsim.sh", text);
  check_loggopsim_grammar(text);
  const LogGOPSimParameters back = read_loggopsim_command(text, "cluster.loggopsim.sh");
  EXPECT_EQ(back.time_unit, "ps");           // 1 / 1e10 B/s is 0.1 ns per byte
  EXPECT_EQ(back.options.at('L'), 1500000);  // t0 of the first segment, 1.5 us
  EXPECT_EQ(back.options.at('G'), 100);      // 1 / r_inf of the last segment, 100 ps per byte
  EXPECT_EQ(back.options.at('S'), 8192);     // the eager segment's largest message
  EXPECT_EQ(back.options.at('o'), 0);
  EXPECT_EQ(back.options.at('O'), 0);
  EXPECT_EQ(back.options.count('g'), 0u);  // not measured: left out, and said so
  EXPECT_NE(text.find("-g: the gap per message"), std::string::npos);
}

TEST(LogGOPSim, MeasuredAndTranscribedProfiles) {
  const std::string path = machine("epyc-vm.yaml");
  const profile::Profile profile = read(path);
  const std::string text = loggopsim_command(profile, relative(path));
  expect_golden("epyc-vm.loggopsim.sh", text);
  check_loggopsim_grammar(text);
  const LogGOPSimParameters back = read_loggopsim_command(text, "epyc-vm");
  const auto& segments = profile.point_to_point->segments;
  EXPECT_EQ(back.time_unit, "ps");
  EXPECT_EQ(back.options.at('L'), std::llround(segments.front().t0.value * 1e12));
  EXPECT_EQ(back.options.at('G'), std::llround(1e12 / segments.back().r_inf.value));
  EXPECT_EQ(back.options.at('S'), static_cast<long long>(segments[segments.size() - 2].to_bytes));
  // g: the measured time per message of the smallest unidirectional stream.
  const profile::StreamingMeasurement* smallest = nullptr;
  for (const auto& m : profile.point_to_point->streaming) {
    if (m.direction == "unidirectional" && (!smallest || m.bytes < smallest->bytes)) smallest = &m;
  }
  ASSERT_TRUE(smallest) << "epyc-vm.yaml keeps its streaming measurements";
  EXPECT_EQ(back.options.at('g'), std::llround(smallest->seconds_per_message.value * 1e12));
  EXPECT_EQ(text.find("-g: the gap per message (the inverse"), std::string::npos);
  const std::string command = text.substr(text.rfind("\nLogGOPSim ") + 1);
  EXPECT_EQ(command.rfind("LogGOPSim -L ", 0), 0u) << command;
  EXPECT_LT(command.find(" -o 0 -g "), command.find(" -G ")) << "LogGOPSim's order: " << command;

  // The SP2: 28.6 MB/s is 35 ns per byte, so nanoseconds; one segment, so no breakpoint.
  const std::string sp2 = loggopsim_command(read(machine("ibm-sp2.yaml")), "machines/ibm-sp2.yaml");
  check_loggopsim_grammar(sp2);
  const LogGOPSimParameters sp2_back = read_loggopsim_command(sp2, "sp2");
  EXPECT_EQ(sp2_back.time_unit, "ns");
  EXPECT_EQ(sp2_back.options.at('L'), 46000);
  EXPECT_EQ(sp2_back.options.at('G'), 35);
  EXPECT_EQ(sp2_back.options.count('S'), 0u);
  EXPECT_NE(sp2.find("-S: no protocol breakpoint"), std::string::npos);

  const std::string message = error_of(
      [] { loggopsim_command(read(machine("sgi-power-challenge.yaml")), "machines/sgi.yaml"); });
  EXPECT_NE(message.find("machines/sgi.yaml"), std::string::npos) << message;
  EXPECT_NE(message.find("point_to_point"), std::string::npos) << message;
}

// ---------------------------------------------------------------------------------------------
// Extra-P

// The text grammar of Extra-P's docs/file-formats.md, checked independently of the library's
// reader: known keywords only, numbers without exponents, one DATA line per point in every
// region under every metric.
void check_extrap_text_grammar(const std::string& text) {
  const std::regex number(R"(^[-+]?[0-9]+(\.[0-9]*)?$)");
  std::size_t points = 0, data = 0, parameters = 0;
  bool in_region = false;
  const auto close_region = [&] {
    if (in_region) {
      EXPECT_EQ(data, points) << "DATA lines of a region";
    }
    data = 0;
  };
  for (const std::string& line : lines_of(text)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string keyword, word;
    words >> keyword;
    std::vector<std::string> rest;
    while (words >> word) rest.push_back(word);
    if (keyword == "PARAMETER") {
      parameters += rest.size();
    } else if (keyword == "POINTS") {
      std::string all;
      for (const std::string& w : rest) all += w + " ";
      const std::regex point(R"(\(([^()]*)\))");
      for (auto it = std::sregex_iterator(all.begin(), all.end(), point);
           it != std::sregex_iterator(); ++it) {
        std::istringstream coordinates((*it)[1].str());
        std::size_t count = 0;
        for (std::string c; coordinates >> c; ++count)
          EXPECT_TRUE(std::regex_match(c, number)) << c;
        EXPECT_EQ(count, parameters) << line;
        ++points;
      }
    } else if (keyword == "METRIC" || keyword == "REGION") {
      close_region();
      in_region = keyword == "REGION";
      EXPECT_FALSE(rest.empty()) << line;
    } else if (keyword == "DATA") {
      ASSERT_TRUE(in_region) << line;
      ++data;
      EXPECT_FALSE(rest.empty());
      for (const std::string& v : rest) EXPECT_TRUE(std::regex_match(v, number)) << v;
    } else {
      ADD_FAILURE() << "unknown keyword in: " << line;
    }
  }
  close_region();
  EXPECT_GT(points, 0u);
  EXPECT_GT(parameters, 0u);
}

// Extra-P's JSON schema (docs/file-formats.md): parameters a non-empty list of strings,
// measurements an object of callpaths, of metrics, of lists of {point: [numbers], values:
// [numbers]}.
void check_extrap_json_schema(const std::string& text) {
  const nlohmann::json root = nlohmann::json::parse(text);
  ASSERT_TRUE(root["parameters"].is_array());
  ASSERT_FALSE(root["parameters"].empty());
  for (const auto& p : root["parameters"]) EXPECT_TRUE(p.is_string());
  ASSERT_TRUE(root["measurements"].is_object());
  ASSERT_FALSE(root["measurements"].empty());
  for (const auto& [callpath, metrics] : root["measurements"].items()) {
    ASSERT_TRUE(metrics.is_object()) << callpath;
    ASSERT_FALSE(metrics.empty()) << callpath;
    for (const auto& [metric, list] : metrics.items()) {
      ASSERT_TRUE(list.is_array()) << metric;
      for (const auto& item : list) {
        ASSERT_TRUE(item["point"].is_array());
        ASSERT_TRUE(item["values"].is_array());
        EXPECT_EQ(item["point"].size(), root["parameters"].size());
        EXPECT_FALSE(item["values"].empty());
        for (const auto& c : item["point"]) EXPECT_TRUE(c.is_number());
        for (const auto& v : item["values"]) EXPECT_TRUE(v.is_number());
      }
    }
  }
}

const ExtrapSeries* find_series(const ExtrapData& data, const std::string& callpath,
                                const std::string& metric) {
  for (const ExtrapSeries& s : data.series) {
    if (s.callpath == callpath && s.metric == metric) return &s;
  }
  return nullptr;
}

TEST(Extrap, CollectivesTextAndJsonRoundTrip) {
  const profile::Profile profile = read(fixture());
  const ExtrapData data = extrap_from_collectives(profile, relative(fixture()));
  ASSERT_EQ(data.parameters, (std::vector<std::string>{"p", "m"}));
  ASSERT_EQ(data.series.size(), 3u);  // allreduce, barrier, broadcast

  const std::string text = extrap_text(data);
  expect_golden("cluster.collectives.extrap.txt", text);
  check_extrap_text_grammar(text);
  const ExtrapData text_back = read_extrap_text(text, "cluster.txt");
  EXPECT_EQ(text_back.parameters, data.parameters);
  // The barrier was measured at m = 0 only: not at the others' points, so not in the text file.
  ASSERT_EQ(text_back.series.size(), 2u);
  EXPECT_EQ(text_back.series[0], *find_series(data, "allreduce", "time"));
  EXPECT_EQ(text_back.series[1], *find_series(data, "broadcast", "time"));
  EXPECT_NE(text.find("Not expressed here: barrier (time)"), std::string::npos);

  const std::string json = extrap_json(data);
  expect_golden("cluster.collectives.extrap.json", json);
  check_extrap_json_schema(json);
  const ExtrapData json_back = read_extrap_json(json, "cluster.json");
  EXPECT_EQ(json_back.series, data.series);

  // Every measured point of the profile is in the JSON, its time unchanged.
  for (const auto& [operation, collective] : profile.collectives) {
    const ExtrapSeries* series = find_series(json_back, operation, "time");
    ASSERT_NE(series, nullptr) << operation;
    ASSERT_EQ(series->points.size(), collective.measurements.size());
    for (const profile::CollectiveMeasurement& m : collective.measurements) {
      const auto point =
          std::find_if(series->points.begin(), series->points.end(), [&](const auto& p) {
            return p.coordinates == std::vector<double>{static_cast<double>(m.ranks), m.bytes};
          });
      ASSERT_NE(point, series->points.end());
      EXPECT_EQ(point->values, std::vector<double>{m.time.value});
    }
  }
}

TEST(Extrap, MeasuredProfileCollectives) {
  const std::string path = machine("epyc-vm.yaml");
  const ExtrapData data = extrap_from_collectives(read(path), relative(path));
  const std::string text = extrap_text(data);
  expect_golden("epyc-vm.collectives.extrap.txt", text);
  check_extrap_text_grammar(text);
  const ExtrapData back = read_extrap_text(text, "epyc-vm.txt");
  EXPECT_EQ(back.series.size(), data.series.size() - 1);  // all but the barrier
  for (const ExtrapSeries& s : back.series) {
    EXPECT_EQ(s, *find_series(data, s.callpath, s.metric)) << s.callpath;
  }
  EXPECT_NE(text.find("Extra-P needs five values"), std::string::npos);
  const std::string json = extrap_json(data);
  check_extrap_json_schema(json);
  EXPECT_EQ(read_extrap_json(json, "epyc-vm.json").series, data.series);
}

TEST(Extrap, CounterFilesTextAndJsonRoundTrip) {
  const counters::CounterTable table =
      counters::read_counter_files({kFixtures / "pilot-1000.csv", kFixtures / "pilot-2000.csv"});
  const ExtrapData data =
      extrap_from_counters(table, "export/tests/fixtures/pilot-1000.csv, pilot-2000.csv");
  ASSERT_EQ(data.parameters, (std::vector<std::string>{"size", "processes"}));
  const ExtrapSeries* time = find_series(data, "ss1.count", "time");
  ASSERT_NE(time, nullptr);
  ASSERT_EQ(time->points.size(), 2u);
  EXPECT_EQ(time->points[0].coordinates, (std::vector<double>{1000, 2}));
  EXPECT_EQ(time->points[0].values, std::vector<double>{0.0012});  // the slowest processor
  EXPECT_EQ(time->points[1].coordinates, (std::vector<double>{2000, 4}));
  const ExtrapSeries* loads = find_series(data, "ss1.count", "loads");
  ASSERT_NE(loads, nullptr);
  EXPECT_EQ(loads->points[0].values, std::vector<double>{10100});  // summed over the processors
  EXPECT_EQ(loads->points[1].values, std::vector<double>{10100});
  // word_accesses was counted at size 1000 only: in the JSON, not in the text, and said so.
  ASSERT_NE(find_series(data, "ss2.move", "word_accesses"), nullptr);

  const std::string text = extrap_text(data);
  expect_golden("pilot.counters.extrap.txt", text);
  check_extrap_text_grammar(text);
  const ExtrapData text_back = read_extrap_text(text, "pilot.txt");
  EXPECT_EQ(text_back.series.size(), data.series.size() - 1);
  for (const ExtrapSeries& s : text_back.series) {
    EXPECT_EQ(s, *find_series(data, s.callpath, s.metric)) << s.callpath << " " << s.metric;
  }
  EXPECT_NE(text.find("ss2.move (word_accesses)"), std::string::npos);
  EXPECT_NE(text.find("ss2.move word_accesses at size 2000"), std::string::npos);

  const std::string json = extrap_json(data);
  expect_golden("pilot.counters.extrap.json", json);
  check_extrap_json_schema(json);
  EXPECT_EQ(read_extrap_json(json, "pilot.json").series, data.series);
}

TEST(Extrap, ProfileWithFormsOnlyNamesFileAndKey) {
  const std::string message = error_of(
      [] { extrap_from_collectives(read(machine("ibm-sp2.yaml")), "machines/ibm-sp2.yaml"); });
  EXPECT_NE(message.find("machines/ibm-sp2.yaml: collectives.<operation>.measurements: absent"),
            std::string::npos)
      << message;
  EXPECT_NE(error_of([] {
              extrap_from_collectives(read(machine("cm-5.yaml")), "cm-5");
            }).find("collectives: absent"),
            std::string::npos);
}

TEST(Extrap, TextReaderRefusesWhatTheGrammarRefuses) {
  const std::string head = "PARAMETER p\nPOINTS (2) (4)\nMETRIC time\nREGION a\n";
  EXPECT_NE(error_of([&] { read_extrap_text(head + "DATA 1\n", "t"); }).find("1 DATA lines for 2"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { read_extrap_text(head + "DATA 1e-6\nDATA 2\n", "t"); }).find("not a NUMBER"),
      std::string::npos);
  EXPECT_NE(error_of([&] { read_extrap_text(head + "DATUM 1\n", "t"); }).find("t:5: unknown"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              read_extrap_text("PARAMETER p m\nPOINTS (2)\n", "t");
            }).find("1 coordinates for 2 parameters"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The command

TEST(ExportCommand, WritesTheFileAndRefusesWrongInputs) {
  const fs::path dir = fs::temp_directory_path() / "sonde-export-test";
  fs::create_directories(dir);
  std::ostringstream out;
  ExportArguments arguments{"loggopsim", {fixture()}, (dir / "l.sh").string(), ""};
  EXPECT_EQ(export_command(arguments, out), 0);
  EXPECT_EQ(read_file(dir / "l.sh"), loggopsim_command(read(fixture()), fixture()));
  EXPECT_NE(out.str().find("written to"), std::string::npos);

  arguments = {"extrap-json",
               {(kFixtures / "pilot-1000.csv").string(), (kFixtures / "pilot-2000.csv").string()},
               (dir / "p.json").string(),
               ""};
  EXPECT_EQ(export_command(arguments, out), 0);
  check_extrap_json_schema(read_file(dir / "p.json"));

  arguments = {"dimemas", {fixture()}, (dir / "c.cfg").string(), machine("ibm-sp2.yaml")};
  EXPECT_EQ(export_command(arguments, out), 0);
  EXPECT_DOUBLE_EQ(read_dimemas_cfg(read_file(dir / "c.cfg"), "c.cfg").speed_ratio,
                   2.0e10 / 266.0e6);

  arguments = {"roofline", {fixture(), fixture()}, (dir / "r.json").string(), ""};
  EXPECT_NE(error_of([&] { export_command(arguments, out); }).find("one profile"),
            std::string::npos);
  arguments = {"roofline", {fixture()}, (dir / "r.json").string(), fixture()};
  EXPECT_NE(error_of([&] { export_command(arguments, out); }).find("--reference"),
            std::string::npos);
  // A profile that lacks what the format needs: nothing is written.
  arguments = {"roofline", {machine("cm-5.yaml")}, (dir / "cm5.json").string(), ""};
  EXPECT_NE(error_of([&] { export_command(arguments, out); }).find("cm-5.yaml"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "cm5.json"));
  fs::remove_all(dir);
}

}  // namespace
