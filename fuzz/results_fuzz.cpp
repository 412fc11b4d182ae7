// Fuzzes the result file reader (core/results.cpp, parse_result_json): the input is a result
// file's text, Google Benchmark's JSON with sonde's additions. A file it accepts keeps the
// format's promises (docs/formats.md, "Result files"): every entry that did not fail has a name,
// a time unit, an iteration count >= 0, real and CPU times finite and >= 0; every counter is
// finite.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/results.hpp"
#include "fuzz/fuzz_support.hpp"

namespace {

using sonde::fuzz::finite_at_least;
constexpr const char* kFile = "fuzz.json";

void check_record(const sonde::BenchmarkRecord& r) {
  SONDE_FUZZ_CHECK(!r.run_name.empty() || r.name.empty(), "{}: an empty run name accepted", r.name);
  if (r.error_message.empty()) {
    SONDE_FUZZ_CHECK(r.iterations >= 0, "{}: {} iterations accepted", r.name, r.iterations);
    SONDE_FUZZ_CHECK(finite_at_least(r.real_time, 0) && finite_at_least(r.cpu_time, 0),
                     "{}: real time {}, CPU time {} accepted", r.name, r.real_time, r.cpu_time);
  }
  for (const auto& [name, value] : r.counters) {
    SONDE_FUZZ_CHECK(std::isfinite(value), "{}: counter {} = {} accepted", r.name, name, value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = sonde::fuzz::text_of(data, size);
  sonde::ResultFile file;
  try {
    file = sonde::parse_result_json(text, kFile);
  } catch (const sonde::Error& e) {
    sonde::fuzz::check_refusal(e, kFile, sonde::ExitCode::bad_input);
    return 0;
  }
  for (const sonde::BenchmarkRecord& record : file.benchmarks) check_record(record);
  try {
    const nlohmann::json& context = file.sonde_context();
    SONDE_FUZZ_CHECK(context.is_object(), "a sonde context that is no object accepted");
  } catch (const sonde::Error& e) {
    sonde::fuzz::check_refusal(e, kFile, sonde::ExitCode::bad_input);
  }
  return 0;
}
