// The datasheet's HTML for a fixture profile: every section there, numbers with their units and
// intervals, absent parts said to be absent and why, text from the profile escaped, plots inline
// with ids of their own; and the historical CM-5, which lacks most parts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/program.hpp"
#include "publish/publish.hpp"

namespace sonde::publish {
namespace {

using profile::Origin;
using profile::Quantity;

Quantity quantity(double value, const std::string& unit, double low, double high) {
  Quantity q;
  q.value = value;
  q.unit = unit;
  q.interval = profile::Interval{low, high, 1};
  q.sources = {"fixture"};
  return q;
}

profile::Profile fixture() {
  profile::Profile p;
  p.machine.name = "fixture";
  p.machine.description = "a <test> machine & \"friends\"";
  p.machine.nodes = 1;
  p.machine.cores_per_node = 2;
  p.provenance.origin = Origin::measured;
  p.provenance.host = "testhost";
  p.provenance.date = "2026-11-22T00:00:00Z";
  p.provenance.results = "results/fixture/run";
  p.compute.peak_flops_per_core = quantity(4e9, "flop/s", 3.9e9, 4.1e9);
  profile::MemoryLevel l1;
  l1.name = "L1d";
  l1.capacity_bytes = 32768;
  l1.line_bytes = 64;
  l1.latency = quantity(1.5e-9, "s", 1.4e-9, 1.6e-9);
  l1.bandwidth["triad/1"] = quantity(100e9, "B/s", 90e9, 110e9);
  profile::MemoryLevel dram;
  dram.name = "DRAM";
  dram.latency = quantity(90e-9, "s", 80e-9, 100e-9);
  dram.bandwidth["triad/1"] = quantity(10e9, "B/s", 9e9, 11e9);
  p.memory = {l1, dram};
  profile::PointToPoint pp;
  profile::HockneySegment s;
  s.from_bytes = 0;
  s.to_bytes = std::numeric_limits<double>::infinity();
  s.t0 = quantity(2e-6, "s", 1.8e-6, 2.2e-6);
  s.r_inf = quantity(5e9, "B/s", 4.5e9, 5.5e9);
  pp.segments = {s};
  pp.streaming = {{"unidirectional", 8, quantity(1.25e-7, "s", 1.2e-7, 1.3e-7)}};
  p.point_to_point = pp;
  p.not_fitted = {"collectives: measured on communicators of 2 rank(s) only <none>"};
  return p;
}

Page page_of(const profile::Profile& p) {
  Page page;
  page.profile = p;
  page.source = "machines/fixture.yaml";
  page.stem = "fixture";
  page.figures = {{"roofline", "the roofline", "<svg id='roofline-a'><title>t</title></svg>", ""},
                  {"latency", "latency", "", "no latency.svg beside the profile"}};
  return page;
}

TEST(Publish, EscapesText) {
  EXPECT_EQ(escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(escape("plain"), "plain");
}

TEST(Publish, PageHasEverySectionWithUnitsAndIntervals) {
  const std::string html = profile_page(page_of(fixture()));
  for (const char* id : {"machine", "compute", "memory", "roofline", "point-to-point",
                         "collectives", "overheads", "contention", "not-fitted"}) {
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\">"), std::string::npos) << id;
  }
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<h1>fixture</h1>"), std::string::npos);
  // Numbers with their units and intervals.
  EXPECT_NE(html.find("4 Gflop/s"), std::string::npos) << "peak per core";
  EXPECT_NE(html.find("1.50 ns"), std::string::npos) << "L1d latency";
  EXPECT_NE(html.find("[1.40 ns .. 1.60 ns] min..max"), std::string::npos);
  EXPECT_NE(html.find("2.00 us"), std::string::npos) << "t0";
  EXPECT_NE(html.find("32 KiB"), std::string::npos) << "L1d capacity";
  // The streaming benchmark: 8 B in 125 ns is 64 MB/s, derived.
  EXPECT_NE(html.find("Streaming: 1 measured point,"), std::string::npos);
  EXPECT_NE(html.find("125 ns"), std::string::npos) << "time per message";
  EXPECT_NE(html.find("<span class=\"v derived\">64.0 MB/s</span>"), std::string::npos);
  // Derived values are marked: m_1/2 = t0 r_inf = 10 kB, the roofline's ridge points.
  EXPECT_NE(html.find("v derived"), std::string::npos);
  EXPECT_NE(html.find("0.04 flop/B"), std::string::npos) << "L1d ridge: 4e9 / 100e9";
  EXPECT_NE(html.find("0.4 flop/B"), std::string::npos) << "DRAM ridge: 4e9 / 10e9";
  // Plots inline; a missing one says why.
  EXPECT_NE(html.find("<svg id='roofline-a'>"), std::string::npos);
  EXPECT_NE(html.find("No latency plot: no latency.svg beside the profile"), std::string::npos);
  // Absent parts: not measured, with the reason, and the profile's not-fitted notes.
  EXPECT_NE(html.find("Not measured: the run this profile was fitted from "
                      "(results/fixture/run) has no contention measurements."),
            std::string::npos);
  EXPECT_NE(html.find("Not fitted: collectives: measured on communicators of 2 rank(s) only "
                      "&lt;none&gt;."),
            std::string::npos);
  // Text from the profile is escaped; nothing external, no script.
  EXPECT_NE(html.find("a &lt;test&gt; machine &amp; &quot;friends&quot;"), std::string::npos);
  EXPECT_EQ(html.find("<test>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_NE(html.find("href=\"fixture.yaml\""), std::string::npos);
  EXPECT_NE(html.find("href=\"index.html\""), std::string::npos);
}

TEST(Publish, HistoricalProfileExplainsWhatItLacks) {
  const profile::Profile cm5 = profile::read_profile("machines/cm-5.yaml");
  Page page;
  page.profile = cm5;
  page.source = "machines/cm-5.yaml";
  page.stem = "cm-5";
  page.figures = draw_figures(cm5, page.source);
  const std::string html = profile_page(page);
  EXPECT_NE(html.find("Not measured: transcribed from Shanmugam"), std::string::npos);
  EXPECT_NE(html.find("which gives no memory levels."), std::string::npos);
  EXPECT_NE(html.find("10.0 us"), std::string::npos) << "Table 3's CommStartupTime";
  EXPECT_NE(html.find("No latency plot: "), std::string::npos);
  if (on_path("gnuplot")) {
    // The Hockney fit as given is drawn, with no measured points.
    EXPECT_NE(html.find("<figure id=\"figure-pingpong\">"), std::string::npos);
  } else {
    EXPECT_NE(html.find("gnuplot is not installed"), std::string::npos);
  }
}

// Without gnuplot on the PATH every plot drawn from the profile says so; the latency curve, drawn
// when the profile was fitted, is still there.
TEST(Publish, WithoutGnuplotThePlotsSaySo) {
  const char* saved = std::getenv("PATH");
  const std::string path = saved ? saved : "";
  const auto empty = std::filesystem::temp_directory_path() / "sonde-publish-no-gnuplot";
  std::filesystem::create_directories(empty);
  ::setenv("PATH", empty.c_str(), 1);
  const auto figures =
      draw_figures(profile::read_profile("machines/epyc-vm.yaml"), "machines/epyc-vm.yaml");
  ::setenv("PATH", path.c_str(), 1);
  std::filesystem::remove_all(empty);
  for (const Figure& f : figures) {
    if (f.id == "latency") {
      EXPECT_NE(f.svg.find("<svg"), std::string::npos);
      EXPECT_NE(f.svg.find("id=\"latency-gnuplot_canvas\""), std::string::npos);
    } else {
      EXPECT_TRUE(f.svg.empty()) << f.id;
      EXPECT_NE(f.missing.find("gnuplot is not installed"), std::string::npos) << f.missing;
    }
  }
}

TEST(Publish, InlineSvgHasIdsOfItsOwn) {
  const std::string svg =
      "<?xml version=\"1.0\"?>\n<svg width=\"10\">\n<title>Gnuplot</title>\n<g "
      "id=\"gnuplot_canvas\"><path id='gpPt0'/><use xlink:href='#gpPt0'/><g "
      "filter=\"url(#textbox)\"/></g></svg>\n";
  const std::string out = inline_svg(svg, "p1-", "a <plot>");
  EXPECT_EQ(out.rfind("<svg role=\"img\" aria-label=\"a &lt;plot&gt;\"", 0), 0u) << out;
  EXPECT_NE(out.find("id=\"p1-gnuplot_canvas\""), std::string::npos);
  EXPECT_NE(out.find("id='p1-gpPt0'"), std::string::npos);
  EXPECT_NE(out.find("xlink:href='#p1-gpPt0'"), std::string::npos);
  EXPECT_NE(out.find("url(#p1-textbox)"), std::string::npos);
  EXPECT_NE(out.find("<title>a &lt;plot&gt;</title>"), std::string::npos);
  EXPECT_EQ(out.find("<?xml"), std::string::npos);
}

TEST(Publish, IndexComparesAndListsFailures) {
  const profile::Profile sp2 = profile::read_profile("machines/ibm-sp2.yaml");
  Page a = page_of(fixture());
  Page b;
  b.profile = sp2;
  b.stem = "ibm-sp2";
  b.source = "machines/ibm-sp2.yaml";
  const std::string html = index_page({a, b}, {{"machines/bad.yaml", "machines/bad.yaml: oops"}});
  EXPECT_NE(html.find("<a href=\"fixture.html\">fixture</a>"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"ibm-sp2.html\">ibm-sp2</a>"), std::string::npos);
  EXPECT_NE(html.find("L1d latency"), std::string::npos);
  EXPECT_NE(html.find("t0, smallest messages"), std::string::npos);
  EXPECT_NE(html.find("barrier"), std::string::npos) << "the SP2's Table 6 barrier";
  EXPECT_NE(html.find("not measured"), std::string::npos) << "the SP2 has no memory levels";
  EXPECT_NE(html.find("Not published"), std::string::npos);
  EXPECT_NE(html.find("machines/bad.yaml: oops"), std::string::npos);
}

TEST(Publish, PublishesTheRestAndNamesAMalformedProfile) {
  const auto root = std::filesystem::temp_directory_path() / "sonde-publish-test";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "in");
  std::filesystem::copy_file("machines/cm-5.yaml", root / "in" / "cm-5.yaml");
  write_file_atomically(root / "in" / "broken.yaml", "schema: sonde-profile\nversion: [\n");
  std::ostringstream out, err;
  const int code = publish_command({{(root / "in").string()}, root / "site"}, out, err);
  EXPECT_EQ(code, static_cast<int>(ExitCode::bad_input));
  EXPECT_NE(err.str().find("broken.yaml"), std::string::npos) << err.str();
  for (const char* name : {"index.html", "cm-5.html", "cm-5.yaml"}) {
    EXPECT_TRUE(std::filesystem::exists(root / "site" / name)) << name;
  }
  EXPECT_FALSE(std::filesystem::exists(root / "site" / "broken.html"));
  EXPECT_NE(read_file(root / "site" / "index.html").find("broken.yaml"), std::string::npos);
  EXPECT_THROW(publish_command({{(root / "nothing-here").string()}, root / "site"}, out, err),
               Error);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace sonde::publish
