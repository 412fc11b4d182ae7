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

}  // namespace
}  // namespace sonde::plot
