// `sonde export <format> <input...> -o <file>`: reads the input, makes the format's text, writes it
// atomically.
#include <fmt/format.h>

#include <filesystem>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "export/export.hpp"
#include "plot/profile_plots.hpp"

namespace sonde::exports {

const std::vector<std::string>& formats() {
  static const std::vector<std::string> names = {"roofline",    "dimemas",     "loggopsim",
                                                 "extrap-text", "extrap-json", "simgrid"};
  return names;
}

namespace {

bool is_profile(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  return extension == ".yaml" || extension == ".yml";
}

std::string joined(const std::vector<std::string>& paths) {
  std::string text;
  for (const std::string& path : paths) text += (text.empty() ? "" : ", ") + path;
  return text;
}

std::string make_export(const ExportArguments& arguments) {
  const std::string& format = arguments.format;
  if (arguments.inputs.empty()) throw usage_error("input", "give a profile or counter files");
  const bool extrap = format == "extrap-text" || format == "extrap-json";
  if (!extrap) {
    if (arguments.inputs.size() != 1 || !is_profile(arguments.inputs[0])) {
      throw usage_error("input", "the " + format + " export takes one profile (.yaml)");
    }
  }
  if (!arguments.reference.empty() && format != "dimemas") {
    throw usage_error("--reference", "only the dimemas export takes a reference profile");
  }
  const std::string& first = arguments.inputs[0];
  if (format == "roofline") return roofline_json(profile::read_profile(first), first);
  if (format == "loggopsim") return loggopsim_command(profile::read_profile(first), first);
  if (format == "simgrid") return simgrid_platform(profile::read_profile(first), first);
  if (format == "dimemas") {
    if (arguments.reference.empty()) return dimemas_cfg(profile::read_profile(first), first);
    const profile::Profile reference = profile::read_profile(arguments.reference);
    return dimemas_cfg(profile::read_profile(first), first, &reference, arguments.reference);
  }
  if (!extrap) throw usage_error("format", "unknown format '" + format + "'");
  ExtrapData data;
  if (is_profile(first)) {
    if (arguments.inputs.size() != 1) {
      throw usage_error("input", "one profile, or counter files (.csv), not both");
    }
    data = extrap_from_collectives(profile::read_profile(first), first);
  } else {
    std::vector<std::filesystem::path> paths;
    for (const std::string& input : arguments.inputs) {
      if (is_profile(input)) throw usage_error("input", "one profile, or counter files, not both");
      paths.emplace_back(input);
    }
    data = extrap_from_counters(counters::read_counter_files(paths), joined(arguments.inputs));
  }
  return format == "extrap-text" ? extrap_text(data) : extrap_json(data);
}

}  // namespace

int export_command(const ExportArguments& arguments, std::ostream& out) {
  const std::string text = make_export(arguments);
  write_file_atomically(arguments.output, text);
  out << arguments.format << " export of " << joined(arguments.inputs) << " written to "
      << arguments.output << "\n";
  if (arguments.format == "roofline") {
    // The plot is drawn from the file as written and read back, so that it shows what the file
    // says: <output stem>.{png,svg} beside it.
    const Roofline written = read_roofline_json(text, arguments.output);
    plot::Roofline roofline;
    roofline.scope = "node";
    roofline.peak_flops = written.gflops * 1e9;
    for (const auto& [level, gbytes] : written.gbytes) {
      roofline.ceilings.push_back({level, "as exported", gbytes * 1e9});
    }
    const std::filesystem::path output(arguments.output);
    const std::filesystem::path folder =
        output.has_parent_path() ? output.parent_path() : std::filesystem::path(".");
    const auto files = plot::plot_roofline(
        fmt::format("{}: roofline as exported (ERT roofline.json)", arguments.inputs[0]), roofline,
        folder, output.stem().string());
    for (const auto& file : files) out << "roofline plot written to " << file.string() << "\n";
  }
  return 0;
}

}  // namespace sonde::exports
