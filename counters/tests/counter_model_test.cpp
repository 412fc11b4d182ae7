// Counter-based prediction (Amato et al. (1999)): F and the BSP-like functions against hand
// computations on the transcribed SGI Power Challenge profile, counter files with every kind of bad
// input, and extrapolation that must recover the forms its pilot counts were generated from.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "counters/counter_file.hpp"
#include "counters/counter_model.hpp"
#include "counters/counter_report.hpp"
#include "counters/extrapolate.hpp"
#include "profile/profile.hpp"

namespace {

using namespace sonde;
using namespace sonde::counters;
namespace fs = std::filesystem;

const std::string kSgi = std::string(SONDE_MACHINES) + "/sgi-power-challenge.yaml";

fs::path write_temp(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / "sonde-counters-test" / name;
  write_file_atomically(path, text);
  return path;
}

double seconds_of(const PhasePrediction& p, const std::string& function) {
  const FunctionValue* f = p.function(function);
  EXPECT_TRUE(f) << function;
  return f ? f->seconds : NAN;
}

// p1.s1.b0.LE: one processor sweeps a 4096-word (32 KB) sub-array ten times, every load an L1
// hit. By hand with Amato et al.'s (1999) section 4 values (us per access or event):
//   F1 = 0.0088 * 40960 = 360.448 us, F2 = F3 = 0, F = F1;
//   QSM.MIN = max(0.0083 * 40960, 0.001 * 10) = 339.968 us, QSM.MAX = 5.35 * 40960 = 219136 us;
//   EBSP.MAX = max(1.31 * 40960, 5.35 * 40960) = 219136 us; DXBSP.MIN = max(0.0083 * 40960,
//   0.26 * 40960 / 8) = 1331.2 us (M_b = M / 8 banks, spread evenly: nothing per bank given).
TEST(PaperTwoFunctions, AllLoadsHitL1) {
  const auto sgi = profile::read_profile(kSgi);
  const auto file = write_temp("p1.s1.b0.LE.csv",
                               "size,phase,processor,counter,value\n"
                               "4096,p1.s1.b0.LE,0,loads,40960\n"
                               "4096,p1.s1.b0.LE,0,stores,0\n"
                               "4096,p1.s1.b0.LE,0,l1_misses,0\n"
                               "4096,p1.s1.b0.LE,0,llc_misses,0\n"
                               "4096,p1.s1.b0.LE,0,l1_writebacks,0\n"
                               "4096,p1.s1.b0.LE,0,llc_writebacks,0\n"
                               "4096,p1.s1.b0.LE,,word_accesses,10\n");
  const auto table = read_counter_file(file);
  const auto p = predict_phase(table.phases.at(0), sgi, kSgi);
  EXPECT_NEAR(seconds_of(p, "F1"), 360.448e-6, 1e-12);
  EXPECT_EQ(seconds_of(p, "F2"), 0);
  EXPECT_EQ(seconds_of(p, "F3"), 0);
  EXPECT_NEAR(seconds_of(p, "F"), 360.448e-6, 1e-12);
  EXPECT_NEAR(seconds_of(p, "QSM.MIN"), 339.968e-6, 1e-12);
  EXPECT_NEAR(seconds_of(p, "QSM.MAX"), 219136e-6, 1e-9);
  EXPECT_NEAR(seconds_of(p, "EBSP.MIN"), 339.968e-6, 1e-12);
  EXPECT_NEAR(seconds_of(p, "EBSP.MAX"), 219136e-6, 1e-9);
  EXPECT_NEAR(seconds_of(p, "DXBSP.MIN"), 1331.2e-6, 1e-10);
  EXPECT_NEAR(seconds_of(p, "DXBSP.MAX"), std::max(3.40 * 40960, 0.33 * 5120) * 1e-6, 1e-9);
  EXPECT_EQ(p.h, 40960);
  EXPECT_EQ(*p.k, 10);
}

// p8.s256.b8.SE: eight processors each store to 1000 words 256 words apart, every store an L1
// and L2 miss in bank 0, each evicting a dirty line: per processor 1000 L1 write-backs and
// 8000 quadwords (an L2 line is 128 B) written back. By hand:
//   F1 = 0.0088*1000 + 0.055*1000 + 0.97*1000 + 0.013*1000 + 0.026*8000 = 1254.8 us;
//   F2 = 1.17 * 8000/8 + 0.18 * 64000/8 = 2610 us;
//   F3 = 0.26 * 8000 + 0.051 * 64000 = 5344 us on bank 0, so F = F3 (bank contention dominates);
//   DXBSP.MIN = max(0.0083 * 1000, 0.26 * 8000) = 2080 us, DXBSP.MAX = max(3.40 * 1000, 0.33 *
//   8000) = 3400 us; EBSP.MAX = max(1.31 * 1000, 5.35 * 8000/8) = 5350 us.
std::string all_misses_to_bank_zero(bool per_bank) {
  std::string text = "size,phase,processor,counter,value,unit\n";
  for (int p = 0; p < 8; ++p) {
    for (const auto& [counter, value] :
         std::vector<std::pair<std::string, int>>{{"loads", 0},
                                                  {"stores", 1000},
                                                  {"l1_misses", 1000},
                                                  {"llc_misses", 1000},
                                                  {"l1_writebacks", 1000},
                                                  {"llc_writebacks", 8000}})
      text += "8000,p8.s256.b8.SE," + std::to_string(p) + "," + counter + "," +
              std::to_string(value) + ",events\n";
  }
  if (per_bank) {
    text +=
        "8000,p8.s256.b8.SE,0,bank_accesses,8000,\n8000,p8.s256.b8.SE,0,bank_llc_misses,8000,\n"
        "8000,p8.s256.b8.SE,0,bank_llc_writebacks,64000,\n";
    for (int b = 1; b < 8; ++b)
      for (const char* c : {"bank_accesses", "bank_llc_misses", "bank_llc_writebacks"})
        text += "8000,p8.s256.b8.SE," + std::to_string(b) + "," + c + ",0,\n";
  }
  return text;
}

TEST(PaperTwoFunctions, AllMissesToOneBank) {
  const auto sgi = profile::read_profile(kSgi);
  const auto table =
      read_counter_file(write_temp("p8.s256.b8.SE.csv", all_misses_to_bank_zero(true)));
  const auto p = predict_phase(table.phases.at(0), sgi, kSgi);
  EXPECT_NEAR(seconds_of(p, "F1"), 1254.8e-6, 1e-10);
  EXPECT_NEAR(seconds_of(p, "F2"), 2610e-6, 1e-10);
  EXPECT_NEAR(seconds_of(p, "F3"), 5344e-6, 1e-10);
  EXPECT_NEAR(seconds_of(p, "F"), 5344e-6, 1e-10);
  EXPECT_EQ(p.function("F")->detail, "F3 dominates");
  EXPECT_EQ(p.function("F3")->detail, "bank 0");
  EXPECT_NEAR(seconds_of(p, "DXBSP.MIN"), 2080e-6, 1e-10);
  EXPECT_NEAR(seconds_of(p, "DXBSP.MAX"), 3400e-6, 1e-10);
  EXPECT_NEAR(seconds_of(p, "EBSP.MAX"), 5350e-6, 1e-10);
  EXPECT_NEAR(seconds_of(p, "QSM.MIN"), 8.3e-6, 1e-12);  // no K: the H term alone, and a note
  EXPECT_FALSE(p.notes.empty());

  // Without per-bank counts, the paper's even spread over 8 banks (section 5.2): F3 = 668 us,
  // and F2 dominates.
  const auto even = read_counter_file(write_temp("even.csv", all_misses_to_bank_zero(false)));
  const auto q = predict_phase(even.phases.at(0), sgi, kSgi);
  EXPECT_NEAR(seconds_of(q, "F3"), 0.26e-6 * 1000 + 0.051e-6 * 8000, 1e-12);
  EXPECT_NEAR(seconds_of(q, "F"), 2610e-6, 1e-10);
}

TEST(PaperTwoFunctions, ErrorRatioAndSummaries) {
  EXPECT_EQ(error_ratio(2.0, 1.0), 2.0);
  EXPECT_EQ(error_ratio(1.0, 2.0), 2.0);
  EXPECT_TRUE(std::isinf(error_ratio(1.0, 0.0)));
  PhasePrediction a, b;
  a.phase = b.phase = "ss1";
  a.measured = 1.0;
  b.measured = 2.0;
  a.functions = {{"F", 1.5, ""}};
  b.functions = {{"F", 1.0, ""}};
  const auto s = summarize_errors({a, b});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_DOUBLE_EQ(s[0].average, 1.75);
  EXPECT_DOUBLE_EQ(s[0].maximum, 2.0);
}

TEST(PaperTwoFunctions, WhatAPredictionLacksIsNamed) {
  const auto sgi = profile::read_profile(kSgi);
  // A count the weights need is missing.
  const auto table = read_counter_file(write_temp("no-l1.csv",
                                                  "size,phase,processor,counter,value\n"
                                                  "10,a,0,loads,5\n10,a,0,stores,5\n"));
  try {
    predict_phase(table.phases.at(0), sgi, kSgi);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no l1_misses count"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no-l1.csv:2"), std::string::npos) << e.what();
  }
  // A profile without F weights.
  const auto sp2 = profile::read_profile(std::string(SONDE_MACHINES) + "/ibm-sp2.yaml");
  try {
    predict_phase(table.phases.at(0), sp2, "ibm-sp2.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("contention.f1: absent"), std::string::npos) << e.what();
  }
}

void expect_error(const std::string& name, const std::string& text, const std::string& expected) {
  const auto path = write_temp(name, text);
  try {
    read_counter_file(path);
    FAIL() << name << " was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << name << ": " << e.what();
    EXPECT_EQ(e.code(), ExitCode::bad_input);
  }
}

TEST(CounterFile, BadFilesGiveClearErrors) {
  const std::string header = "size,phase,processor,counter,value\n";
  expect_error("empty.csv", "", "empty");
  expect_error("header-only.csv", header, "no counts");
  expect_error("missing-column.csv", "size,phase,counter,value\n1,a,loads,3\n",
               "missing column 'processor'");
  expect_error("unknown-column.csv", "size,phase,processor,counter,value,colour\n",
               "unknown column 'colour'");
  expect_error("unknown-counter.csv", header + "1,a,0,cache_hits,3\n",
               "unknown counter 'cache_hits'");
  expect_error("negative.csv", header + "1,a,0,loads,-3\n", "loads: expected >= 0, found -3");
  expect_error("nan.csv", header + "1,a,0,loads,nan\n", "expected a number, found 'nan'");
  expect_error("text.csv", header + "1,a,0,loads,many\n", "expected a number, found 'many'");
  expect_error("size.csv", header + "0,a,0,loads,3\n", "size: expected > 0");
  expect_error("processor.csv", header + "1,a,1.5,loads,3\n", "whole number");
  expect_error("unit.csv", "size,phase,processor,counter,value,unit\n1,a,0,time,3,fortnights\n",
               "unknown time unit 'fortnights'");
  expect_error("count-unit.csv", "size,phase,processor,counter,value,unit\n1,a,0,loads,3,s\n",
               "unknown unit 's' for a count");
  expect_error("twice.csv", header + "1,a,0,loads,3\n1,a,0,loads,4\n", "given twice (also at");
  expect_error("unlike.csv", header + "1,a,0,loads,3\n1,a,1,stores,4\n",
               "processor 0 has loads but processor 1 has not");
  expect_error("quote.csv", header + "1,\"a,0,loads,3\n", "not valid CSV");
  expect_error("cells.csv", header + "1,a,0,loads,3,9\n", "6 cells, the header has 5");
  expect_error("bounds.csv", "size,phase,processor,counter,value,low,high\n1,a,0,loads,3,4,5\n",
               "low <= value <= high");
  expect_error("k.csv", header + "1,a,0,word_accesses,3\n", "word_accesses is per phase");
}

TEST(CounterFile, ReadsUnitsCommentsAndWritesWhatItReads) {
  const auto path = write_temp("good.csv",
                               "# a comment\n"
                               "phase,size,processor,counter,value,unit,source\n"
                               "\"a, quoted\",10,0,time,2,ms,clock\n"
                               "\"a, quoted\",10,1,time,3000,us,clock\n"
                               "b,20,0,loads,7,,hand\n");
  const auto table = read_counter_file(path);
  ASSERT_EQ(table.phases.size(), 2u);
  EXPECT_DOUBLE_EQ(*table.find("a, quoted", 10)->measured_time(), 3e-3);  // the slowest
  EXPECT_FALSE(table.find("b", 20)->measured_time());                     // no time given
  const auto again = read_counter_file(write_temp("again.csv", format_counter_file(table)));
  EXPECT_EQ(format_counter_file(again), format_counter_file(table));
}

// Pilot counts from known forms with 0.1% noise (callgrind's counts have none; PAPI's little) at
// n/p = 1e5 i, i = 1..5; forecasts at i = 6..10 must land within 3% of the truth, inside their
// intervals.
TEST(Extrapolation, RecoversTheFormsItWasGeneratedFrom) {
  std::mt19937 random(7);
  std::normal_distribution<double> noise(0.0, 0.001);
  const auto truth = [](const std::string& counter, double n) {
    if (counter == "loads") return 2 * n + 300;                    // n + 1
    if (counter == "stores") return 0.9 * n;                       // n
    if (counter == "l1_misses") return 0.0625 * n * std::log2(n);  // n log n
    return 64.0;                                                   // constant
  };
  std::string text = "size,phase,processor,counter,value\n";
  for (int i = 1; i <= 5; ++i) {
    const double n = 1e5 * i;
    for (int p = 0; p < 2; ++p)
      for (const char* c : {"loads", "stores", "l1_misses", "llc_misses"})
        text += fmt::format("{},ss,{},{},{}\n", n, p, c, truth(c, n) * (1 + noise(random)));
    text += fmt::format("{},ss,0,time,1e-3\n{},ss,1,time,1e-3\n", n, n);
  }
  const auto pilots = read_counter_file(write_temp("pilots.csv", text));
  const std::vector<double> targets = {6e5, 7e5, 8e5, 9e5, 1e6};
  const auto x = extrapolate(pilots, targets, "pilots.csv", 100);
  for (const auto& fit : x.fits) {
    if (fit.counter == "llc_misses") {
      EXPECT_EQ(fit.form, "1");
    }
    if (fit.counter == "l1_misses") {
      EXPECT_EQ(fit.form.rfind("n log n", 0), 0u) << fit.form;
    }
  }
  for (double n : targets) {
    const auto* phase = x.forecast.find("ss", n);
    ASSERT_TRUE(phase);
    for (const auto& [p, counts] : phase->processors) {
      EXPECT_FALSE(counts.count("time"));  // times are predicted, not extrapolated
      for (const auto& [counter, v] : counts) {
        const double t = truth(counter, n);
        EXPECT_NEAR(v.value, t, 0.03 * t) << counter << " at " << n;
        EXPECT_LE(*v.low, t * 1.01) << counter;
        EXPECT_GE(*v.high, t * 0.99) << counter;
        EXPECT_EQ(v.source, "extrapolated");
      }
    }
  }
  EXPECT_NE(format_count_fits(x.fits).find("n log n"), std::string::npos);
}

// Pilot counts of one processor that grow as n, at three sizes, with a time (as collected).
std::string linear_pilots(double time_at_target) {
  std::string text = "size,phase,processor,counter,value\n";
  for (double n : {1e3, 2e3, 3e3, 6e3}) {
    if (n == 6e3 && time_at_target <= 0) continue;
    for (const char* c : {"loads", "stores", "l1_misses", "llc_misses"})
      text += fmt::format("{},ss,0,{},{}\n", n, c, 10 * n);
    for (const char* c : {"l1_writebacks", "llc_writebacks"})
      text += fmt::format("{},ss,0,{},0\n", n, c);
    text += fmt::format("{},ss,0,time,{}\n", n, n == 6e3 ? time_at_target : 1e-3);
  }
  return text;
}

// Without --measured there is nothing measured: the table and the JSON must not print the forecast
// F in the column or the field named for measured counts, and must say the F they give comes from
// extrapolated counts. With measured counts, both columns are there and differ in their source.
TEST(Extrapolation, WithoutMeasuredCountsNothingIsLabelledMeasured) {
  const auto sgi = profile::read_profile(kSgi);
  const auto pilots = read_counter_file(write_temp("linear-pilots.csv", linear_pilots(0)));
  const auto x = extrapolate(pilots, {6e3}, "linear-pilots.csv", 0);
  const auto points = predict_extrapolation(x, nullptr, "", sgi, kSgi);
  ASSERT_EQ(points.size(), 1u);
  const double f = points[0].extrapolated.function("F")->seconds;
  EXPECT_GT(f, 0);

  const nlohmann::json rows = table4_json(points);
  ASSERT_EQ(rows.size(), 1u);
  const nlohmann::json& row = rows[0];
  EXPECT_FALSE(row.contains("f_measured_counts")) << row.dump();
  EXPECT_FALSE(row.contains("measured_seconds")) << row.dump();
  EXPECT_FALSE(row.contains("error_measured_counts")) << row.dump();
  EXPECT_DOUBLE_EQ(row.at("f_extrapolated").get<double>(), f);

  const std::string table = format_table4(points);
  const std::string header = table.substr(0, table.find('\n'));
  EXPECT_EQ(header.find("measured"), std::string::npos) << table;
  EXPECT_EQ(header.find("counted"), std::string::npos) << table;
  EXPECT_NE(table.find("F from extrapolated counts"), std::string::npos) << table;
  EXPECT_NE(table.find("no measured counts"), std::string::npos) << table;

  // With measured counts at the target size: F with them, F with the extrapolated ones, both E.
  const auto measured = read_counter_file(write_temp("linear-measured.csv", linear_pilots(2e-3)));
  const auto compared = predict_extrapolation(x, &measured, "linear-measured.csv", sgi, kSgi);
  const nlohmann::json both = table4_json(compared);
  ASSERT_EQ(both.size(), 1u);
  EXPECT_TRUE(both[0].contains("f_measured_counts")) << both.dump();
  EXPECT_DOUBLE_EQ(both[0].at("measured_seconds").get<double>(), 2e-3);
  EXPECT_TRUE(both[0].contains("error_extrapolated")) << both.dump();
  EXPECT_NE(format_table4(compared).find("F counted"), std::string::npos);
}

// Pilot runs at five sizes and four process counts, strong scaling: each processor loads 2 n / p
// words and stores 0.9 n / p, and processor 0 loads 5000 more (its extra work), 0.1% noise. At
// n = 1e6 and p = 32, never run, the model in n and p at once must give processor 0 and the others
// their loads within 3%, and the intervals must hold the truth.
TEST(Extrapolation, InSizeAndProcessesAtOnce) {
  std::mt19937 random(5);
  std::normal_distribution<double> noise(0.0, 0.001);
  std::string text = "size,phase,processor,counter,value,processes\n";
  for (int i = 1; i <= 5; ++i) {
    const double n = 1e5 * i;
    for (int p : {1, 2, 4, 8}) {
      for (int processor = 0; processor < p; ++processor) {
        const double loads = 2 * n / p + (processor == 0 ? 5000 : 0);
        text += fmt::format("{},ss,{},loads,{},{}\n", n, processor, loads * (1 + noise(random)), p);
        text += fmt::format("{},ss,{},stores,{},{}\n", n, processor,
                            0.9 * n / p * (1 + noise(random)), p);
      }
    }
  }
  const auto pilots = read_counter_file(write_temp("pilots-np.csv", text));
  EXPECT_EQ(pilots.process_counts(), (std::vector<int>{1, 2, 4, 8}));
  // Forecasting at another count needs the count.
  EXPECT_THROW(extrapolate(pilots, {1e6}, "pilots-np.csv", 0), Error);
  const auto x = extrapolate(pilots, {1e6}, "pilots-np.csv", 100, {32});
  const auto* phase = x.forecast.find("ss", 1e6, 32);
  ASSERT_TRUE(phase);
  ASSERT_EQ(phase->processors.size(), 32u);
  const auto near = [](const CountValue& v, double truth, const std::string& what) {
    EXPECT_NEAR(v.value, truth, 0.03 * truth) << what;
    EXPECT_LE(*v.low, truth * 1.01) << what;
    EXPECT_GE(*v.high, truth * 0.99) << what;
  };
  near(phase->processors.at(0).at("loads"), 2e6 / 32 + 5000, "processor 0's loads");
  near(phase->processors.at(31).at("loads"), 2e6 / 32, "processor 31's loads");
  near(phase->processors.at(7).at("stores"), 0.9e6 / 32, "processor 7's stores");
  bool largest = false;
  for (const CountFit& fit : x.fits) {
    if (fit.counter == "loads" && fit.over == "largest") {
      largest = true;
      EXPECT_EQ(fit.form, "1 + n p^-1") << "the extra work is a constant, the rest n / p";
    }
  }
  EXPECT_TRUE(largest);
  // Written, the forecast states its process count, and reads back.
  const std::string written = format_counter_file(x.forecast);
  EXPECT_NE(written.find(",processes\n"), std::string::npos) << written.substr(0, 200);
  const auto back = parse_counter_file(written, "forecast.csv");
  ASSERT_TRUE(back.find("ss", 1e6, 32));
  EXPECT_DOUBLE_EQ(back.find("ss", 1e6, 32)->processors.at(0).at("loads").value,
                   phase->processors.at(0).at("loads").value);
}

TEST(CounterFile, TheProcessesColumnIsCheckedAndSeparatesRuns) {
  const std::string header = "size,phase,processor,counter,value,processes\n";
  // The same size at two counts: two runs, not a count given twice.
  const auto table = parse_counter_file(
      header + "10,a,0,loads,3,1\n10,a,0,loads,2,2\n10,a,1,loads,2,2\n", "two.csv");
  EXPECT_EQ(table.phases.size(), 2u);
  EXPECT_EQ(table.find("a", 10, 2)->processors.size(), 2u);
  const auto error = [&](const std::string& rows) {
    try {
      parse_counter_file(header + rows, "bad.csv");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("10,a,0,loads,3,0\n").find("bad.csv:2:6: processes: expected a whole number"),
            std::string::npos)
      << error("10,a,0,loads,3,0\n");
  EXPECT_NE(error("10,a,0,loads,3,2.5\n").find("expected a whole number"), std::string::npos);
  EXPECT_NE(error("10,a,2,loads,3,2\n").find("processor 2 in a run of 2 processes"),
            std::string::npos)
      << error("10,a,2,loads,3,2\n");
  EXPECT_NE(error("10,a,0,loads,3,2\n10,a,0,loads,4,2\n").find("with 2 processes given twice"),
            std::string::npos);
}

TEST(Extrapolation, RefusesTooFewSizesAndGaps) {
  const std::string header = "size,phase,processor,counter,value\n";
  try {
    extrapolate(read_counter_file(write_temp("one.csv", header + "10,a,0,loads,3\n")), {100},
                "one.csv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("1 problem size only"), std::string::npos) << e.what();
  }
  EXPECT_THROW(extrapolate(read_counter_file(
                               write_temp("two.csv", header + "10,a,0,loads,3\n20,a,0,loads,6\n")),
                           {100}, "two.csv"),
               Error);
  try {
    extrapolate(read_counter_file(write_temp("gap.csv", header + "10,a,0,loads,3\n10,a,0,stores,3\n"
                                                                 "20,a,0,loads,6\n20,a,0,stores,6\n"
                                                                 "30,a,0,loads,9\n")),
                {100}, "gap.csv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("stores is missing at size 30"), std::string::npos)
        << e.what();
  }
  // A count that appears only at a larger size would be dropped without a word: an error.
  try {
    extrapolate(
        read_counter_file(write_temp("extra.csv", header + "10,a,0,loads,3\n20,a,0,loads,6\n"
                                                           "30,a,0,loads,9\n30,a,1,loads,9\n")),
        {100}, "extra.csv");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("absent at the smallest size"), std::string::npos)
        << e.what();
  }
}

}  // namespace
