// `sonde export <format> <input...> -o <file>`: reads the input, makes the format's text, writes it
// atomically.
#include <filesystem>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "export/export.hpp"

namespace sonde::exports {

const std::vector<std::string>& formats() {
  static const std::vector<std::string> names = {"roofline", "dimemas", "loggopsim", "extrap-text",
                                                 "extrap-json"};
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
  return 0;
}

}  // namespace sonde::exports
