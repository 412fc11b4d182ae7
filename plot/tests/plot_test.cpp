// The plots are drawn from a profile alone where it has what they need: Xu and Hwang's (1995) SP2
// (Table 4's ping-pong measurements, Eq. 5, the collective forms of Tables 5 and 6) gives the
// ping-pong and collectives plots, as PNG and SVG, and no partial files are left behind.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/program.hpp"
#include "plot/profile_plots.hpp"
#include "profile/profile.hpp"

namespace sonde::plot {
namespace {

TEST(ProfilePlots, DrawsTheSp2FromItsProfile) {
  if (!on_path("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
  const auto folder = std::filesystem::temp_directory_path() / "sonde-plot-test";
  std::filesystem::remove_all(folder);
  const auto written =
      plot_profile(profile::read_profile("machines/ibm-sp2.yaml"), RunRecords{}, folder);
  for (const char* name : {"pingpong.png", "pingpong.svg", "collectives.png", "collectives.svg"}) {
    EXPECT_TRUE(std::filesystem::exists(folder / name)) << name;
    EXPECT_GT(std::filesystem::file_size(folder / name), 1000u) << name;
  }
  EXPECT_EQ(written.size(), 4u);  // no memory levels: no latency or bandwidth plot
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    EXPECT_EQ(entry.path().string().find(".partial."), std::string::npos) << entry.path();
  }
  std::filesystem::remove_all(folder);
}

// The roofline of a measured profile: the peak per node and, for each memory level, its best
// bandwidth at the most threads measured; a transcription without memory levels has none.
TEST(ProfilePlots, RooflineFromAProfile) {
  profile::Profile p;
  p.machine.name = "fixture";
  profile::Quantity peak;
  peak.value = 100e9;
  peak.unit = "flop/s";
  p.compute.peak_flops_per_node = peak;
  profile::MemoryLevel l1, dram;
  l1.name = "L1d";
  dram.name = "DRAM";
  profile::Quantity b;
  b.unit = "B/s";
  b.value = 400e9;
  l1.bandwidth["copy/2"] = b;
  b.value = 500e9;
  l1.bandwidth["triad/1"] = b;  // faster, but on one thread: not the node's ceiling
  b.value = 300e9;
  l1.bandwidth["triad/2"] = b;
  b.value = 20e9;
  dram.bandwidth["read/2"] = b;
  p.memory = {l1, dram};
  const auto roofline = roofline_of(p);
  ASSERT_TRUE(roofline);
  EXPECT_EQ(roofline->scope, "node");
  ASSERT_EQ(roofline->ceilings.size(), 2u);
  EXPECT_EQ(roofline->ceilings[0].level, "L1d");
  EXPECT_EQ(roofline->ceilings[0].kernel, "copy/2");
  EXPECT_DOUBLE_EQ(roofline->ridge(roofline->ceilings[0]), 0.25);
  EXPECT_DOUBLE_EQ(roofline->ridge(roofline->ceilings[1]), 5.0);

  EXPECT_FALSE(roofline_of(profile::read_profile("machines/cm-5.yaml")));

  if (!on_path("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
  const auto folder = std::filesystem::temp_directory_path() / "sonde-plot-roofline-test";
  std::filesystem::remove_all(folder);
  const auto written = plot_roofline("fixture: roofline", *roofline, folder);
  ASSERT_EQ(written.size(), 2u);
  EXPECT_TRUE(std::filesystem::exists(folder / "roofline.svg"));
  EXPECT_GT(std::filesystem::file_size(folder / "roofline.svg"), 1000u);
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace sonde::plot
