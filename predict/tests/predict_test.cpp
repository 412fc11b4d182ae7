// Early prediction checked against Xu and Hwang (1995) by hand, and malformed spreadsheets rejected
// with their line and column.
#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "predict/predictor.hpp"
#include "predict/report.hpp"
#include "predict/workload.hpp"
#include "profile/profile.hpp"

namespace sonde::predict {
namespace {

const profile::Profile& sp2() {
  static const profile::Profile p = profile::read_profile("machines/ibm-sp2.yaml");
  return p;
}

Predictor stap(const std::string& program) {
  return Predictor(read_workload("examples/stap/" + program + ".csv"), sp2(),
                   "machines/ibm-sp2.yaml");
}

double a2a(double n, double m) { return 80e-6 * std::log2(n) + 0.03e-6 * std::pow(n, 1.29) * m; }

// APT at n = 256, worked by hand from Table 7 and Tables 5 and 6:
//   compute    0.04 + (4.12 + 9.64 + 0.57) / 256
//   exchange   80 log n + 0.03 n^1.29 m us, m = 17 MB / n^2
//   broadcast  52 log n + 0.029 log n m us, m = 80 KB
//   reduce     50 log n + 16 us
TEST(Stap, AptMatchesTable10) {
  const Predictor apt = stap("apt");
  const double n = 256;
  const double by_hand = 0.04 + 14.33 / n + a2a(n, 17e6 / (n * n)) + 52e-6 * 8 +
                         0.029e-6 * 8 * 80e3 + 50e-6 * 8 + 16e-6;
  const Point p = apt.at(n, Scheme::full_overhead);
  EXPECT_NEAR(p.total, by_hand, 1e-12);
  // Table 10: T_256 = 0.125 s, P = 11.5 Gflop/s, S = 114, E = 45%, U = 17%.
  EXPECT_NEAR(p.total, 0.125, 0.01 * 0.125);
  EXPECT_NEAR(p.speed, 11.5e9, 0.05e9);
  EXPECT_NEAR(p.speedup, 114, 0.5);
  EXPECT_NEAR(100 * p.efficiency, 45, 0.5);
  EXPECT_NEAR(100 * p.utilization, 17, 0.5);
  // Table 8's expression, before the forms are multiplied out: 0.03 us x 17 MB = 0.51 s.
  EXPECT_EQ(apt.expression(),
            "14.33/min(n, 256) + 0.04 + [alltoall (80 log n + (0.03 n^1.29) m) us, m = 17e6/n^2] + "
            "[broadcast (52 log n + (0.029 log n) m) us, m = 80e3] + [reduce (50 log n + 16) us]");
  // The overhead per operation.
  ASSERT_EQ(p.overheads.size(), 3u);
  EXPECT_EQ(p.overheads[1].operation, "broadcast");
  EXPECT_NEAR(p.overheads[1].seconds, 52e-6 * 8 + 0.029e-6 * 8 * 80e3, 1e-12);
}

// Table 9's W and T_1 follow from Table 7; T_inf from the stated DOPs is 0.04 + 14.33 / 256.
// (The paper prints 0.08 s, which these DOPs cannot give: see docs/validation.md.)
TEST(Stap, Table9Metrics) {
  const Summary apt = stap("apt").summary();
  EXPECT_NEAR(apt.work_flop, 1446.88e6, 1);
  EXPECT_NEAR(apt.t1, 14.37, 1e-9);
  EXPECT_NEAR(apt.t_inf, 0.04 + 14.33 / 256, 1e-12);
  EXPECT_EQ(apt.n_max, 256);
  EXPECT_NEAR(apt.average_parallelism, 14.37 / (0.04 + 14.33 / 256), 1e-9);
  ASSERT_TRUE(apt.sccr);
  EXPECT_NEAR(*apt.sccr, 266e6 * 46e-6, 1e-6);  // 12,236 flops (the paper's 10,374 uses 39 us)
  const Summary ho = stap("ho").summary();
  EXPECT_NEAR(ho.work_flop, 12852e6, 1);
  EXPECT_NEAR(ho.t1, 130.61, 1e-9);
  const Summary gen = stap("gen").summary();
  EXPECT_NEAR(gen.work_flop, 5326e6, 1);
  EXPECT_NEAR(gen.t1, 141.28, 1e-9);
}

// HO and GEN: the terms of Table 8 that the spreadsheets model, evaluated by hand.
TEST(Stap, HoAndGenFollowTheirSpreadsheets) {
  const double n = 256;
  EXPECT_NEAR(stap("ho").at(n, Scheme::full_overhead).total,
              130.61 / n + a2a(n, 50e6 / (n * n)) + 50e-6 * 8 + 16e-6, 1e-12);
  EXPECT_NEAR(
      stap("gen").at(n, Scheme::full_overhead).total,
      (22.80 + 79.14 + 19.11) / n + 20.23 / 32 + a2a(n, 200e6 / (n * n)) + 50e-6 * 8 + 16e-6,
      1e-12);
}

TEST(Stap, SchemesAndOneNode) {
  const Predictor apt = stap("apt");
  const Point one = apt.at(1, Scheme::full_overhead);
  EXPECT_NEAR(one.total, 14.37, 1e-12);  // one node sends no message
  EXPECT_NEAR(one.speedup, 1, 1e-12);
  // Zero-overhead: Eq. 2 without T_comm. Theoretical: every flop at W / T_1.
  EXPECT_NEAR(apt.at(256, Scheme::zero_overhead).total, 0.04 + 14.33 / 256, 1e-12);
  const double rate = 1446.88e6 / 14.37;
  EXPECT_NEAR(apt.at(256, Scheme::theoretical).total,
              2.88e6 / rate + (84 + 1314 + 46) * 1e6 / rate / 256, 1e-12);
}

// Section 5.4's three requirements: time 0.5 s, speed 10 Gflop/s, speedup 200.
TEST(Stap, RequirementsOfSection54) {
  const Predictor apt = stap("apt");
  const auto time =
      check_requirement(apt, parse_requirement("time<=0.5s"), Scheme::full_overhead, 256);
  ASSERT_TRUE(time.met);
  EXPECT_EQ(*time.smallest_n, 36);  // 0.503 s at n = 35 (0.449 compute), 0.491 s at n = 36
  const auto speedup =
      check_requirement(apt, parse_requirement("speedup>=200"), Scheme::full_overhead, 1024);
  EXPECT_FALSE(speedup.met);
  EXPECT_NE(speedup.why.find("average parallelism"), std::string::npos) << speedup.why;
  const auto gen_time =
      check_requirement(stap("gen"), parse_requirement("time<=0.5s"), Scheme::full_overhead, 512);
  EXPECT_FALSE(gen_time.met);
  EXPECT_NE(gen_time.why.find("critical path"), std::string::npos) << gen_time.why;
  EXPECT_THROW(parse_requirement("speedup<=3"), Error);
  EXPECT_THROW(parse_requirement("time<=5 parsecs"), Error);
}

TEST(Prediction, MovesTimesAcrossMachinesByThePeakRatio) {
  // The APT spreadsheet, measured on the SP2, predicted for the CM-5 (Shanmugam et al.'s (1995)
  // MipsRatio: times scale by rate_SP2 / rate_CM5).
  PredictOptions options;
  options.reference_machines["ibm-sp2"] = sp2();
  profile::Profile cm5 = profile::read_profile("machines/cm-5.yaml");
  // The CM-5 profile has no collectives: APT's exchange cannot be costed there.
  EXPECT_THROW(
      Predictor(read_workload("examples/stap/apt.csv"), cm5, "machines/cm-5.yaml", options), Error);
  const Workload no_comm = parse_workload(
      "kind,name,work [Mflop],time [s],machine,dop\ncomponent,A,100,2,ibm-sp2,4\n", "one.csv");
  const Predictor on_cm5(no_comm, cm5, "machines/cm-5.yaml", options);
  EXPECT_NEAR(on_cm5.summary().t1, 2 * 266e6 / 2.7645e6, 1e-9);
  // Without the reference profile the error says which one is needed.
  try {
    Predictor(no_comm, cm5, "machines/cm-5.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--reference machines/ibm-sp2.yaml"), std::string::npos)
        << e.what();
  }
}

TEST(Prediction, FahringerPozgajLoopDistributionAndKernels) {
  profile::Profile target = sp2();
  profile::Quantity add;
  add.value = 2e-9;
  add.unit = "s";
  target.compute.kernels["add.throughput"] = add;
  const Workload w = parse_workload(
      "kind,name,work [flop],ops.add,dop,loop,distribution,operation,bytes [B],count,after\n"
      "component,L,1e6,1e6,1000,10,BLOCK,,,,\n"
      "communication,halo,,,,,,point_to_point,1024,2,L\n",
      "loop.csv");
  const Predictor p(w, target, "t.yaml");
  EXPECT_NEAR(p.summary().t1, 1e6 * 2e-9, 1e-15);  // operation counts x the kernel library
  // 10 iterations on 4 processors: shares 3, 3, 2, 2; the slowest has 3 of 10.
  EXPECT_NEAR(p.at(4, Scheme::zero_overhead).total, 2e-3 * 3 / 10, 1e-15);
  const auto parameters = p.program_parameters(4);
  ASSERT_EQ(parameters.size(), 1u);
  const double mean = 2.5, sd = 0.5;  // of 3, 3, 2, 2
  EXPECT_NEAR(parameters[0].goodness, sd / mean, 1e-12);
  EXPECT_EQ(parameters[0].transfers, 2);
  EXPECT_EQ(parameters[0].bytes, 2048);
  EXPECT_NEAR(parameters[0].transfer_seconds, 2 * (46e-6 + 1024 / (1 / 0.035e-6)), 1e-12);
}

// A triangular loop (iteration i of 1..N does i units of work: for (j = 0; j < i; ++j)) of N = 8
// iterations, T_1 = 36 s (1 s per unit; W = 8 * 9 / 2 = 36 units), on 4 processes. By hand:
//   BLOCK deals 1-2, 3-4, 5-6, 7-8: 3, 7, 11, 15 units; the last process is the slowest, 15 s.
//   CYCLIC deals 1+5, 2+6, 3+7, 4+8: 6, 8, 10, 12 units; the slowest has 12 s.
// BLOCK / CYCLIC = 15 / 12 = 1.25. With N = 10 (W = 55 units, T_1 = 55 s), BLOCK gives the first
// two processes one more (1-3, 4-6, 7-8, 9-10: 6, 15, 15, 19), CYCLIC 1+5+9, 2+6+10, 3+7, 4+8
// (15, 18, 10, 12): 19 s against 18 s. A decreasing loop (i does N + 1 - i: for (j = i; j <= N;
// ++j)) is the mirror image for N = 8: BLOCK's first process has 8 + 7 = 15, CYCLIC's 8 + 4 = 12.
// Uniform iterations take ceil(N/p)/N of T_1 either way: 2/8 of 36 s = 9 s.
TEST(Prediction, TriangularLoopIsSlowerUnderBlockThanCyclic) {
  const auto predict = [](double iterations, double t1, const std::string& distribution,
                          const std::string& cost) {
    const Workload w = parse_workload(
        "kind,name,work [flop],time [s],dop,loop,distribution,iteration cost\n"
        "component,L,1e6," +
            fmt::format("{},1000,{},{},{}\n", t1, iterations, distribution, cost),
        "triangle.csv");
    return Predictor(w, sp2(), "machines/ibm-sp2.yaml");
  };
  const auto at4 = [](const Predictor& p) { return p.at(4, Scheme::zero_overhead).total; };
  const Predictor block = predict(8, 36, "BLOCK", "increasing");
  const Predictor cyclic = predict(8, 36, "CYCLIC", "increasing");
  EXPECT_NEAR(at4(block), 15, 1e-12);
  EXPECT_NEAR(at4(cyclic), 12, 1e-12);
  EXPECT_NEAR(at4(block) / at4(cyclic), 1.25, 1e-12);
  EXPECT_NEAR(at4(predict(10, 55, "BLOCK", "increasing")), 19, 1e-12);
  EXPECT_NEAR(at4(predict(10, 55, "CYCLIC", "increasing")), 18, 1e-12);
  EXPECT_NEAR(at4(predict(8, 36, "BLOCK", "decreasing")), 15, 1e-12);
  EXPECT_NEAR(at4(predict(8, 36, "CYCLIC", "decreasing")), 12, 1e-12);
  EXPECT_NEAR(at4(predict(8, 36, "BLOCK", "uniform")), 9, 1e-12);
  EXPECT_NEAR(at4(predict(8, 36, "CYCLIC", "")), 9, 1e-12);
  // One process does it all; as many processes as iterations or more: the largest iteration, 8
  // of 36.
  EXPECT_NEAR(block.at(1, Scheme::zero_overhead).total, 36, 1e-12);
  EXPECT_NEAR(block.at(8, Scheme::zero_overhead).total, 8, 1e-12);
  EXPECT_NEAR(cyclic.at(16, Scheme::zero_overhead).total, 8, 1e-12);
  // The program parameters follow the same shares: coefficient of variation of 3, 7, 11, 15
  // (mean 9, deviation sqrt(20)) and of 6, 8, 10, 12 (mean 9, deviation sqrt(5)).
  EXPECT_NEAR(block.program_parameters(4)[0].goodness, std::sqrt(20.0) / 9, 1e-12);
  EXPECT_NEAR(cyclic.program_parameters(4)[0].goodness, std::sqrt(5.0) / 9, 1e-12);
  // T_n's expression names the loop's share rather than ceil(N/p)/N, which holds for uniform
  // iterations only.
  EXPECT_EQ(block.expression(), "36 share(8 increasing BLOCK, min(n, 1000))");
  EXPECT_EQ(predict(8, 36, "CYCLIC", "uniform").expression(), "36 ceil(8/min(n, 1000))/8");
}

// T_par from the profile's overheads: the SP2's process creation (Table 2, 1.4 ms) per node.
TEST(Prediction, ParallelismOverheadFromTheProfile) {
  const Workload w = parse_workload(
      "kind,name,work [Mflop],time [s],dop,operation,count,after\n"
      "component,A,100,1,64,,,\n"
      "parallelism,spawn,,,,process_creation,n-1,A\n",
      "spawn.csv");
  const Predictor p(w, sp2(), "machines/ibm-sp2.yaml");
  EXPECT_NEAR(p.at(1, Scheme::full_overhead).total, 1, 1e-12);
  const Point at8 = p.at(8, Scheme::full_overhead);
  EXPECT_NEAR(at8.parallelism, 7 * 1.4e-3, 1e-12);
  EXPECT_NEAR(at8.total, 1.0 / 8 + 7 * 1.4e-3, 1e-12);
  profile::Profile without = sp2();
  without.overheads.operations.erase("process_creation");
  EXPECT_THROW(Predictor(w, without, "x.yaml"), Error);
}

TEST(Prediction, NodesAndOutputs) {
  EXPECT_EQ(parse_nodes("1..8"), (std::vector<double>{1, 2, 4, 8}));
  EXPECT_EQ(parse_nodes("3,5"), (std::vector<double>{3, 5}));
  EXPECT_THROW(parse_nodes("0,2"), Error);
  EXPECT_THROW(parse_nodes("1..x"), Error);
  const Predictor apt = stap("apt");
  const std::string table = format_prediction(apt, {1, 256}, {});
  EXPECT_NE(table.find("critical path T_inf"), std::string::npos) << table;
  const std::string csv = prediction_csv(apt, {1, 256});
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 7);  // header + 3 schemes x 2
  const auto json = prediction_json(apt, {256}, {});
  EXPECT_NEAR(json["schemes"]["full-overhead"][0]["speedup"].get<double>(), 114, 0.5);
}

// --- malformed spreadsheets ---

// Xu and Hwang's (1995) T_inf: a component whose DOP grows with n (DOP = n) has no part in the
// critical path, so a serial part alone bounds the average parallelism (Amdahl), and with no such
// part there is no bound at all.
TEST(Prediction, ACriticalPathOfTheBoundedComponentsAlone) {
  // 9 s that any number of nodes share, 1 s on one node: T_inf = 1 s, T1/T_inf = 10.
  const Predictor amdahl(parse_workload("kind,name,work [Mflop],time [s],dop\n"
                                        "component,A,900,9,n\n"
                                        "component,B,100,1,1\n",
                                        "amdahl.csv"),
                         sp2(), "machines/ibm-sp2.yaml");
  EXPECT_DOUBLE_EQ(amdahl.summary().t_inf, 1);
  EXPECT_DOUBLE_EQ(amdahl.summary().average_parallelism, 10);
  EXPECT_DOUBLE_EQ(amdahl.summary().p_inf, 1e9);
  const std::string table = format_prediction(amdahl, {1, 8}, {});
  EXPECT_NE(table.find("critical path T_inf       1.00 s (the components of bounded DOP alone)"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("maximal parallelism N_max unbounded"), std::string::npos) << table;
  EXPECT_NE(table.find("average parallelism       10.0"), std::string::npos) << table;
  EXPECT_NE(table.find("use at most about 20 nodes"), std::string::npos) << table;
  EXPECT_EQ(amdahl.expression(), "9/n + 1");

  // Every DOP grows with n: no critical path (it was 9 s / 2^40, printed as picoseconds).
  const Predictor open(parse_workload("kind,name,work [Mflop],time [s],dop\n"
                                      "component,A,900,9,n\n",
                                      "open.csv"),
                       sp2(), "machines/ibm-sp2.yaml");
  EXPECT_EQ(open.summary().t_inf, 0);
  EXPECT_TRUE(std::isinf(open.summary().average_parallelism));
  EXPECT_TRUE(std::isinf(open.summary().p_inf));
  const std::string unbounded = format_prediction(open, {1, 8}, {});
  EXPECT_NE(unbounded.find("critical path T_inf       0 (every component's DOP grows with n)"),
            std::string::npos)
      << unbounded;
  EXPECT_NE(unbounded.find("average parallelism       unbounded"), std::string::npos) << unbounded;
  EXPECT_NE(unbounded.find("sets no limit on the number of nodes"), std::string::npos) << unbounded;
}

void expect_rejected(const std::string& text, const std::string& fragment) {
  try {
    parse_workload(text, "bad.csv");
    FAIL() << "accepted:\n" << text;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
        << "expected '" << fragment << "' in: " << e.what();
  }
}

const std::string kHeader = "kind,name,work [Mflop],time [s],dop,operation,bytes [B],count,after\n";

TEST(Malformed, MissingColumnsAndUnits) {
  expect_rejected("name,work [Mflop]\ncomponent,A,1\n",
                  "bad.csv:1: the header has no 'kind' column");
  expect_rejected("kind,name,work,time [s],dop\n", "bad.csv:1:3: column 'work' needs its unit");
  expect_rejected("kind,name,work [parsecs],time [s],dop\n",
                  "bad.csv:1:3: 'work [parsecs]': unknown unit 'parsecs'");
  expect_rejected("kind,name,colour\n", "bad.csv:1:3: unknown column 'colour'");
  expect_rejected("kind,name,work [Mflop],dop\ncomponent,A,0,2\n",
                  "bad.csv:2: component 'A' needs a time [s], a rate [flop/s], work [flop]");
  expect_rejected("kind,name,work [Mflop],dop,working set [B]\ncomponent,A,1,2,100\n",
                  "bad.csv:2:5 (working set [B]): a working set places traffic, random or column");
  expect_rejected("kind,name,traffic [B],access,dop\ncomponent,A,1,scatter,2\n",
                  "bad.csv:2:4 (access): unknown access 'scatter'");
  expect_rejected("kind,name,traffic [B],time [s],dop\ncomponent,A,1,2,2\n",
                  "bad.csv:2:4 (time [s]): a component is costed from its measured time");
  expect_rejected("kind,name,value\nplacement,ranks per node,2\n",
                  "bad.csv:2:2 (name): unknown placement 'ranks per node'");
  expect_rejected("kind,name,value\nplacement,processes per node,0\n",
                  "bad.csv:2:3 (value): processes per node '0' is 0 at n = 1");
  expect_rejected("kind,name,work [Mflop],time [s]\ncomponent,A,1,2\n",
                  "bad.csv:2: a component row needs a 'dop' column");
}

TEST(Malformed, BadExpressionsPointAtTheCharacter) {
  expect_rejected(kHeader + "component,A,1,2,4*(n+,,,,\n",
                  "bad.csv:2:5 (dop): in '4*(n+' at character");
  expect_rejected(kHeader + "component,A,1,2,4*q,,,,\n",
                  "bad.csv:2:5 (dop): in '4*q' at character 3");
  expect_rejected(kHeader + "component,A,q,2,4,,,,\n",
                  "bad.csv:2:3 (work [Mflop]): in 'q' at character 1");
}

TEST(Malformed, NegativeTimesAndZeroDop) {
  expect_rejected(kHeader + "component,A,1,-2,4,,,,\n", "bad.csv:2:4 (time [s]): '-2' is -2");
  expect_rejected(kHeader + "component,A,1,0,4,,,,\n", "a time must be > 0");
  expect_rejected(kHeader + "component,A,1,2,0,,,,\n",
                  "bad.csv:2:5 (dop): degree of parallelism '0' is 0 at n = 1");
  expect_rejected(kHeader + "component,A,1,2,64-n,,,,\n", "is -960 at n = 1024");
}

TEST(Malformed, UnknownOperationsAndKinds) {
  expect_rejected(kHeader + "component,A,1,2,4,,,,\ncommunication,x,,,,telepathy,8,1,A\n",
                  "bad.csv:3:6 (operation): unknown communication operation 'telepathy'");
  expect_rejected(kHeader + "component,A,1,2,4,,,,\ncommunication,x,,,,broadcast,8,1,B\n",
                  "bad.csv:3: 'after' names 'B', which is not a component");
  expect_rejected(kHeader + "widget,A,1,2,4,,,,\n", "bad.csv:2:1 (kind): unknown kind 'widget'");
  expect_rejected(kHeader + "component,A,1,2,4,,,,\ncomponent,A,1,2,4,,,,\n",
                  "bad.csv:3:2 (name): component 'A' appears twice");
  expect_rejected(kHeader + "component,\"A,1,2,4\n", "bad.csv");  // an unclosed quote
  expect_rejected(kHeader + "component,A,1,2,4,,,,,,extra\n", "bad.csv:2:10: a value beyond");
}

TEST(Malformed, LoopsOperationCountsAndZeroWork) {
  const std::string header = "kind,name,work [Mflop],time [s],dop,loop,distribution,ops.add\n";
  expect_rejected(header + "component,A,1,2,4,0,BLOCK,\n",
                  "bad.csv:2:6 (loop): a loop of 0 iterations; expected a whole number >= 1");
  expect_rejected(header + "component,A,1,2,4,2.5,,\n", "a loop of 2.5 iterations");
  expect_rejected(header + "component,A,1,2,4,,CYCLIC,\n",
                  "bad.csv:2:7 (distribution): a distribution needs the loop it distributes");
  expect_rejected(header + "component,A,1,,4,,,-3\n", "bad.csv:2:8 (ops.add): '-3' is -3");
  const std::string costed = "kind,name,work [Mflop],time [s],dop,loop,iteration cost\n";
  expect_rejected(costed + "component,A,1,2,4,8,quadratic\n",
                  "bad.csv:2:7 (iteration cost): unknown iteration cost 'quadratic'");
  expect_rejected(costed + "component,A,1,2,4,,increasing\n",
                  "bad.csv:2:7 (iteration cost): an iteration cost needs the loop it describes");
  // Work of 0 flop (a program that only moves data) is predicted, without rates.
  const Workload no_work = parse_workload(header + "component,A,0,2,4,,,\n", "zero.csv");
  const Point two = Predictor(no_work, sp2(), "machines/ibm-sp2.yaml").at(2, Scheme::theoretical);
  EXPECT_DOUBLE_EQ(two.total, 1);
  EXPECT_DOUBLE_EQ(two.speed, 0);
}

TEST(Malformed, AProfileLackingANeededForm) {
  profile::Profile no_scan = sp2();
  no_scan.collectives.erase("scan");
  const Workload w = parse_workload(kHeader +
                                        "component,A,1,2,4,,,,\n"
                                        "communication,prefix,,,,scan,8,1,A\n",
                                    "scan.csv");
  try {
    Predictor(w, no_scan, "machines/ibm-sp2.yaml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("machines/ibm-sp2.yaml: collectives.scan: absent"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sonde::predict
