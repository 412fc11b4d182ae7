#include "publish/publish.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/program.hpp"
#include "core/units.hpp"
#include "core/version.hpp"
#include "plot/profile_plots.hpp"
#include "profile/report.hpp"

namespace sonde::publish {

using profile::Collective;
using profile::Interval;
using profile::MemoryLevel;
using profile::Origin;
using profile::Profile;
using profile::Quantity;

namespace {

// The one stylesheet, embedded in every page.
constexpr const char* kStyle = R"(
:root { color-scheme: light; }
body { font-family: sans-serif; margin: 0 auto; max-width: 1240px; padding: 0 20px 40px;
       color: #1b1f24; background: #ffffff; line-height: 1.4; }
nav { padding: 10px 0; border-bottom: 1px solid #d0d7de; font-size: 14px; }
nav a { margin-right: 16px; }
h1 { margin: 18px 0 4px; font-size: 28px; }
h2 { margin-top: 32px; padding-bottom: 4px; border-bottom: 2px solid #0969da; font-size: 20px; }
h3 { font-size: 16px; margin: 18px 0 6px; }
p.lead { margin-top: 0; color: #57606a; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 3px 7px; vertical-align: top; text-align: left; }
thead th { background: #f0f3f6; }
tbody th { font-weight: normal; background: #f6f8fa; white-space: nowrap; }
td.num { white-space: nowrap; font-variant-numeric: tabular-nums; }
span.v { font-weight: bold; }
span.iv { color: #57606a; font-size: 12px; white-space: nowrap; }
td.note { color: #57606a; font-size: 12px; max-width: 520px; }
.derived { font-style: italic; }
.absent { color: #8c959f; font-style: italic; }
p.absent, li.absent { color: #6e7781; }
figure { margin: 12px 0 20px; border: 1px solid #d0d7de; padding: 6px; }
figure svg { width: 100%; height: auto; display: block; }
figcaption { font-size: 13px; color: #57606a; margin-top: 4px; }
div.nofigure { border: 1px dashed #afb8c1; padding: 14px; color: #6e7781; font-style: italic;
               margin: 12px 0 20px; }
div.wide { overflow-x: auto; }
table.compare td { min-width: 90px; max-width: 180px; white-space: normal; }
table.compare tbody th { white-space: normal; max-width: 190px; }
table.compare span.iv { display: block; white-space: normal; font-size: 11px; }
table.compare tr.group th { background: #ddf4ff; font-weight: bold; }
details summary { cursor: pointer; color: #0969da; font-size: 14px; }
footer { margin-top: 36px; border-top: 1px solid #d0d7de; padding-top: 8px; font-size: 12px;
         color: #57606a; }
code { font-size: 12px; }
)";

std::string head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"sonde " +
         escape(version) + "\">\n<title>" + escape(title) + "</title>\n<style>" + kStyle +
         "</style>\n</head>\n<body>\n";
}

std::string footer(const std::string& what) {
  return "<footer>" + what +
         " Values are shown with their units; an interval [low .. high] follows a value where "
         "the profile has one (min..max: the range of the repetitions or working sets; a "
         "percentage: a confidence level). <span class=\"derived\">Italic</span> values are "
         "derived from others. Written by sonde " +
         escape(version) + " (<code>sonde publish</code>).</footer>\n</body>\n</html>\n";
}

std::string interval_text(const Interval& interval, const std::string& unit) {
  const std::string level =
      interval.level >= 1 ? "min..max" : fmt::format("{:.0f}%", interval.level * 100);
  return fmt::format("[{} .. {}] {}", profile::format_value(interval.low, unit),
                     profile::format_value(interval.high, unit), level);
}

// A value with its unit, and its interval where it has one.
std::string value_html(const Quantity& q) {
  std::string out = "<span class=\"v" + std::string(q.origin == Origin::derived ? " derived" : "") +
                    "\">" + escape(profile::format_value(q.value, q.unit)) + "</span>";
  if (q.interval) {
    out += " <span class=\"iv\">" + escape(interval_text(*q.interval, q.unit)) + "</span>";
  }
  return out;
}

Quantity derived(double value, const std::string& unit, const std::string& note = "") {
  Quantity q;
  q.value = value;
  q.unit = unit;
  q.origin = Origin::derived;
  q.note = note;
  return q;
}

std::string origin_text(const Quantity& q) {
  std::string out = profile::to_string(q.origin);
  if (q.quality) {
    out += fmt::format("; fit error mean {:.1f}%, max {:.1f}% over {} points",
                       100 * q.quality->mean_relative_error, 100 * q.quality->max_relative_error,
                       q.quality->points);
  }
  return out;
}

std::string notes_text(const Quantity& q) {
  std::string out;
  // At most three sources, as `sonde show` names the first: a fit over a grid has dozens.
  if (!q.sources.empty()) {
    const std::size_t shown = std::min<std::size_t>(q.sources.size(), 3);
    out = fmt::format("from {}", fmt::join(q.sources.begin(), q.sources.begin() + shown, ", "));
    if (q.sources.size() > shown) out += fmt::format(" and {} more", q.sources.size() - shown);
  }
  if (!q.note.empty()) out += (out.empty() ? "" : "; ") + q.note;
  return out;
}

constexpr const char* kQuantityHeader =
    "<thead><tr><th>quantity</th><th>value [interval]</th><th>origin</th><th>sources and "
    "notes</th></tr></thead>\n";

std::string quantity_row(const std::string& label, const Quantity& q) {
  return fmt::format(
      "<tr><th>{}</th><td class=\"num\">{}</td><td>{}</td><td class=\"note\">{}</td></tr>\n",
      escape(label), value_html(q), escape(origin_text(q)), escape(notes_text(q)));
}

std::string absent_cell(const std::string& why = "not measured") {
  return "<span class=\"absent\">" + escape(why) + "</span>";
}

// Why a profile has no `what`, in its own terms: a transcription gives none, a run did not
// measure it, and the profile's own not-fitted notes on `keys`.
std::string absent_reason(const Profile& p, const std::string& what,
                          const std::vector<std::string>& keys = {}) {
  std::string out;
  if (p.provenance.origin == Origin::transcribed) {
    out = fmt::format("Not measured: transcribed from {}, which gives no {}.",
                      p.provenance.citation.empty() ? "a paper" : p.provenance.citation, what);
  } else {
    out = fmt::format("Not measured: the run this profile was fitted from{} has no {}.",
                      p.provenance.results.empty() ? "" : " (" + p.provenance.results + ")", what);
  }
  for (const std::string& note : p.not_fitted) {
    for (const std::string& key : keys) {
      if (note.rfind(key, 0) == 0) {
        out += " Not fitted: " + note + ".";
        break;
      }
    }
  }
  return out;
}

// Why a profile has no roofline: what of the peak rate and the bandwidth it lacks.
std::string roofline_missing(const Profile& p) {
  const bool peak = p.compute.peak_flops_per_core || p.compute.peak_flops_per_node;
  bool bandwidth = false;
  for (const MemoryLevel& level : p.memory) bandwidth = bandwidth || !level.bandwidth.empty();
  const std::string lacks = !peak && !bandwidth ? "peak rate or memory bandwidth"
                            : !peak             ? "peak rate"
                            : !bandwidth        ? "memory bandwidth"
                                                : "";
  if (lacks.empty()) {
    return "it needs a peak rate and, for a level, a bandwidth by kernel/threads at the threads "
           "the peak was measured on; this profile has none that match.";
  }
  return "it needs a peak rate and a memory bandwidth. " + absent_reason(p, lacks);
}

std::string absent_paragraph(const std::string& reason) {
  return "<p class=\"absent\">" + escape(reason) + "</p>\n";
}

std::string figure_html(const std::vector<Figure>& figures, const std::string& id) {
  for (const Figure& f : figures) {
    if (f.id != id) continue;
    if (f.svg.empty()) {
      return "<div class=\"nofigure\" id=\"figure-" + escape(id) + "\">" +
             escape("No " + id + " plot: " + f.missing) + "</div>\n";
    }
    return "<figure id=\"figure-" + escape(id) + "\">\n" + f.svg + "\n<figcaption>" +
           escape(f.caption) + "</figcaption>\n</figure>\n";
  }
  return "";
}

std::string message_range(const profile::PointToPoint& pp, const profile::HockneySegment& s) {
  if (pp.segments.size() == 1) return "all sizes";
  if (std::isfinite(s.to_bytes)) {
    return fmt::format("{} .. {}", format_bytes(s.from_bytes), format_bytes(s.to_bytes));
  }
  return fmt::format("{} and more", format_bytes(s.from_bytes));
}

std::string provenance_rows(const Profile& p) {
  std::string out;
  std::string absent_text = "not measured";  // what an empty cell of the next rows says
  const auto row = [&](const std::string& label, const std::string& value) {
    if (!value.empty()) {
      out += "<tr><th>" + escape(label) + "</th><td>" + escape(value) + "</td></tr>\n";
    }
  };
  const auto count = [](const std::optional<std::uint64_t>& n) {
    return n ? std::to_string(*n) : std::string();
  };
  row("name", p.machine.name);
  row("description", p.machine.description);
  row("nodes", count(p.machine.nodes));
  row("cores per node", count(p.machine.cores_per_node));
  row("origin", profile::to_string(p.provenance.origin));
  if (p.provenance.origin == Origin::transcribed) {
    row("transcribed from", p.provenance.citation);
  }
  row("host", p.provenance.host);
  row("CPU", p.provenance.cpu_model);
  row("topology", p.provenance.topology);
  row("compiler", p.provenance.compiler);
  row("MPI library", p.provenance.mpi_library);
  row("MPI version", p.provenance.mpi_version);
  row("date", p.provenance.date);
  row("sonde version", p.provenance.sonde_version);
  row("raw results", p.provenance.results);
  row("raw results SHA-256", p.provenance.results_digest);
  for (const std::string& part : p.provenance.unfinished_parts) {
    row("from an interrupted part", part);
  }
  row("profile schema", fmt::format("{} version {}", profile::kSchemaName, p.version));
  return out;
}

std::string compute_section(const Profile& p) {
  std::string out = "<section id=\"compute\">\n<h2>Compute</h2>\n";
  const auto& c = p.compute;
  if (!c.peak_flops_per_core && !c.peak_flops_per_node && !p.machine.clock) {
    out += absent_paragraph(absent_reason(p, "peak rate", {"compute"}));
  } else {
    out += std::string("<table>\n") + kQuantityHeader + "<tbody>\n";
    if (p.machine.clock) out += quantity_row("clock", *p.machine.clock);
    if (c.peak_flops_per_core) out += quantity_row("peak per core", *c.peak_flops_per_core);
    if (c.peak_flops_per_node) out += quantity_row("peak per node", *c.peak_flops_per_node);
    out += "</tbody></table>\n";
  }
  out += "<h3>Kernel library (time per operation)</h3>\n";
  if (c.kernels.empty()) {
    out += absent_paragraph(absent_reason(p, "per-operation kernel times", {"compute.kernels"}));
  } else {
    out += fmt::format(
               "<details><summary>The {} kernels: seconds per operation, latency (a "
               "dependent chain) and throughput</summary>\n<table>\n",
               c.kernels.size()) +
           kQuantityHeader + "<tbody>\n";
    for (const auto& [name, q] : c.kernels) out += quantity_row(name, q);
    out += "</tbody></table>\n</details>\n";
  }
  return out + "</section>\n";
}

std::string memory_section(const Page& page) {
  const Profile& p = page.profile;
  std::string out = "<section id=\"memory\">\n<h2>Memory levels</h2>\n";
  if (p.memory.empty()) {
    out += absent_paragraph(absent_reason(p, "memory levels", {"memory"}));
    return out + "</section>\n";
  }
  out +=
      "<table>\n<thead><tr><th>level</th><th>capacity (hwloc, per instance)</th><th>line</th>"
      "<th>ways</th><th>capacity seen by the latency curve</th><th>latency per dependent "
      "load</th></tr></thead>\n<tbody>\n";
  for (const MemoryLevel& level : p.memory) {
    out += "<tr><th>" + escape(level.name) + "</th><td class=\"num\">" +
           (level.capacity_bytes
                ? "<span class=\"v\">" +
                      escape(format_bytes(static_cast<double>(*level.capacity_bytes))) + "</span>"
                : absent_cell("not given")) +
           "</td><td class=\"num\">" +
           (level.line_bytes ? fmt::format("{} B", *level.line_bytes) : absent_cell("not given")) +
           "</td><td class=\"num\">" +
           (level.ways ? std::to_string(*level.ways) : absent_cell("not given")) +
           "</td><td class=\"num\">" +
           (level.detected_capacity ? value_html(*level.detected_capacity) : absent_cell()) +
           "</td><td class=\"num\">" +
           (level.latency ? value_html(*level.latency) : absent_cell()) + "</td></tr>\n";
  }
  out += "</tbody></table>\n";
  out += figure_html(page.figures, "latency");
  out += "<h3>Bandwidth (kernel/threads)</h3>\n";
  bool any = false;
  std::string rows;
  for (const MemoryLevel& level : p.memory) {
    for (const auto& [key, q] : level.bandwidth) {
      rows += quantity_row(level.name + " " + key, q);
      any = true;
    }
  }
  if (any) {
    out += std::string("<table>\n") + kQuantityHeader + "<tbody>\n" + rows + "</tbody></table>\n";
    out += figure_html(page.figures, "bandwidth");
  } else {
    out += absent_paragraph(absent_reason(p, "memory bandwidth", {"memory"}));
  }
  return out + "</section>\n";
}

std::string roofline_section(const Page& page) {
  const Profile& p = page.profile;
  std::string out = "<section id=\"roofline\">\n<h2>Roofline</h2>\n";
  const auto roofline = plot::roofline_of(p);
  if (!roofline) {
    out += absent_paragraph("No roofline: " + roofline_missing(p));
    return out + "</section>\n";
  }
  out += fmt::format(
      "<p>Attainable rate = min(peak, intensity &times; bandwidth), with the peak per {} "
      "and each level's best bandwidth at {}. The ridge point (peak / bandwidth) is the "
      "arithmetic intensity above which a kernel whose data stays in that level is bound by "
      "compute rather than by the level.</p>\n",
      escape(roofline->scope),
      roofline->scope == "node" ? "the most threads measured" : "one thread");
  out +=
      "<table>\n<thead><tr><th>level</th><th>bandwidth (kernel/threads)</th><th>ridge point "
      "(derived)</th></tr></thead>\n<tbody>\n";
  for (const plot::RooflineCeiling& c : roofline->ceilings) {
    out += fmt::format(
        "<tr><th>{}</th><td class=\"num\"><span class=\"v\">{}</span> ({})</td><td "
        "class=\"num\"><span class=\"v derived\">{:.3g} flop/B</span></td></tr>\n",
        escape(c.level), escape(format_bytes_per_second(c.bytes_per_second)), escape(c.kernel),
        roofline->ridge(c));
  }
  out += fmt::format("</tbody></table>\n<p>Peak per {}: <span class=\"v\">{}</span>.</p>\n",
                     escape(roofline->scope),
                     escape(profile::format_value(roofline->peak_flops, "flop/s")));
  out += figure_html(page.figures, "roofline");
  return out + "</section>\n";
}

std::string point_to_point_section(const Page& page) {
  const Profile& p = page.profile;
  std::string out =
      "<section id=\"point-to-point\">\n<h2>Point-to-point (ping-pong, Hockney fit t = t0 + m / "
      "r_inf)</h2>\n";
  if (!p.point_to_point || p.point_to_point->segments.empty()) {
    out += absent_paragraph(absent_reason(p, "point-to-point measurements", {"point_to_point"}));
    return out + "</section>\n";
  }
  const profile::PointToPoint& pp = *p.point_to_point;
  out +=
      "<table>\n<thead><tr><th>messages m</th><th>t0 [interval]</th><th>r_inf "
      "[interval]</th><th>m_1/2 = t0 r_inf (derived)</th><th>origin</th><th>sources and "
      "notes</th></tr></thead>\n<tbody>\n";
  for (const profile::HockneySegment& s : pp.segments) {
    out += fmt::format(
        "<tr><th>{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td><td>{}</td><td class=\"note\">{}</td></tr>\n",
        escape(message_range(pp, s)), value_html(s.t0), value_html(s.r_inf),
        value_html(derived(s.t0.value * s.r_inf.value, "B")),
        escape(origin_text(s.t0) +
               (s.t0.origin != s.r_inf.origin ? " / " + profile::to_string(s.r_inf.origin) : "")),
        escape(notes_text(s.t0) +
               (notes_text(s.r_inf).empty() || notes_text(s.r_inf) == notes_text(s.t0)
                    ? ""
                    : "; r_inf " + notes_text(s.r_inf))));
  }
  out += "</tbody></table>\n<ul>\n";
  if (pp.quality) {
    out += fmt::format("<li>Fit error: mean {:.1f}%, max {:.1f}% over {} message sizes.</li>\n",
                       100 * pp.quality->mean_relative_error, 100 * pp.quality->max_relative_error,
                       pp.quality->points);
  }
  out +=
      fmt::format("<li>{} measured message sizes in the profile.</li>\n", pp.measurements.size());
  if (const auto ratio = profile::sccr(p)) {
    out += fmt::format(
        "<li><span class=\"derived\">SCCR = P_peak t0 = {:.0f} flops</span>: what one process "
        "could compute in the time of a 0-byte message (Xu and Hwang (1995), section 5.3; "
        "derived).</li>\n",
        *ratio);
  }
  out += "</ul>\n";
  // The streaming benchmark as measured: LogGP's gap g at a small size (Alexandrov et al. (1995)).
  if (!pp.streaming.empty()) {
    std::string rows;
    for (const profile::StreamingMeasurement& m : pp.streaming) {
      rows += fmt::format(
          "<tr><th>{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td></tr>\n",
          escape(m.direction), escape(format_bytes(m.bytes)), value_html(m.seconds_per_message),
          value_html(derived(m.bytes / m.seconds_per_message.value, "B/s")));
    }
    out += fmt::format(
        "<details><summary>Streaming: {} measured point{}, time per message of a window sent back "
        "to back (at a small size, LogGP's gap g)</summary>\n<table>\n<thead><tr><th>direction"
        "</th><th>message m</th><th>time per message [interval]</th><th>bandwidth (derived)</th>"
        "</tr></thead>\n<tbody>\n{}</tbody></table>\n</details>\n",
        pp.streaming.size(), pp.streaming.size() == 1 ? "" : "s", rows);
  }
  out += figure_html(page.figures, "pingpong");
  return out + "</section>\n";
}

std::string collectives_section(const Page& page) {
  const Profile& p = page.profile;
  std::string out =
      "<section id=\"collectives\">\n<h2>Collectives (t in us, m in bytes, n ranks)</h2>\n";
  if (p.collectives.empty()) {
    out += absent_paragraph(absent_reason(p, "collectives", {"collectives"}));
    return out + "</section>\n";
  }
  out +=
      "<table>\n<thead><tr><th>operation</th><th>form in n (Xu and Hwang (1995) Tables 5 and "
      "6) or measured points</th><th>fitted on n</th><th>fit error</th><th>notes</th></tr>"
      "</thead>\n<tbody>\n";
  for (const auto& [name, c] : p.collectives) {
    const auto quality = c.t0.quality;
    out += fmt::format(
        "<tr><th>{}</th><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"note\">{}</td></tr>\n",
        escape(name), escape(profile::format_collective(c)),
        c.ranks.empty() ? absent_cell(c.has_forms() ? "not given" : "no form")
                        : escape(fmt::format("{}", fmt::join(c.ranks, ", "))),
        quality ? escape(fmt::format("mean {:.1f}%, max {:.1f}% over {}",
                                     100 * quality->mean_relative_error,
                                     100 * quality->max_relative_error, quality->points))
                : absent_cell("none given"),
        escape(c.t0.note));
  }
  out += "</tbody></table>\n";
  // The same collectives as one model in n and m at once (Calotoiu et al. (2016)), where fitted.
  std::string models;
  for (const auto& [name, c] : p.collectives) {
    if (!c.ranks_and_bytes) continue;
    const profile::TwoParameterFormula& f = *c.ranks_and_bytes;
    std::vector<std::string> intervals;
    for (const profile::TwoParameterTerm& t : f.terms) {
      intervals.push_back(t.interval ? fmt::format("[{:.3g} .. {:.3g}]", t.interval->low * 1e6,
                                                   t.interval->high * 1e6)
                                     : std::string("none"));
    }
    models += fmt::format(
        "<tr><th>{}</th><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"note\">{}</td></tr>\n",
        escape(name), escape(f.text(1e6)), escape(fmt::format("{}", fmt::join(intervals, " "))),
        f.quality ? escape(fmt::format("mean {:.1f}%, max {:.1f}% over {}",
                                       100 * f.quality->mean_relative_error,
                                       100 * f.quality->max_relative_error, f.quality->points))
                  : absent_cell("none given"),
        escape(f.note));
  }
  if (!models.empty()) {
    out += fmt::format(
        "<h3>In n and m at once</h3>\n<table>\n<thead><tr><th>operation</th><th>t(n, m) in "
        "us, fitted</th><th>95% intervals of the terms (us)</th><th>fit error</th><th>notes"
        "</th></tr></thead>\n<tbody>\n{}</tbody></table>\n",
        models);
  }
  std::string rows;
  std::size_t count = 0;
  for (const auto& [name, c] : p.collectives) {
    for (const profile::CollectiveMeasurement& m : c.measurements) {
      rows += fmt::format(
          "<tr><th>{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td></tr>\n",
          escape(name), m.ranks, escape(format_bytes(m.bytes)), value_html(m.time));
      ++count;
    }
  }
  if (count > 0) {
    out += fmt::format(
        "<details><summary>The {} measured points (median time of one operation; interval: the "
        "repetitions' range)</summary>\n<table>\n<thead><tr><th>operation</th><th>ranks "
        "n</th><th>message m</th><th>time [interval]</th></tr></thead>\n<tbody>\n{}"
        "</tbody></table>\n</details>\n",
        count, rows);
  }
  out += figure_html(page.figures, "collectives");
  return out + "</section>\n";
}

std::string overheads_section(const Profile& p) {
  std::string out = "<section id=\"overheads\">\n<h2>Overheads</h2>\n";
  const auto& o = p.overheads;
  if (o.operations.empty() && o.forms.empty()) {
    out += absent_paragraph(absent_reason(p, "overheads", {"overheads"}));
    return out + "</section>\n";
  }
  if (!o.operations.empty()) {
    out += std::string("<table>\n") + kQuantityHeader + "<tbody>\n";
    for (const auto& [name, q] : o.operations) out += quantity_row(name, q);
    out += "</tbody></table>\n";
  }
  if (!o.forms.empty()) {
    out +=
        "<h3>Forms in the number of threads or ranks n (t in us)</h3>\n<table>\n<thead><tr>"
        "<th>operation</th><th>t(n)</th><th>origin</th><th>fit error</th><th>notes</th></tr>"
        "</thead>\n<tbody>\n";
    for (const auto& [name, f] : o.forms) {
      out += fmt::format(
          "<tr><th>{}</th><td class=\"num\">{} us</td><td>{}</td><td class=\"num\">{}</td><td "
          "class=\"note\">{}</td></tr>\n",
          escape(name), escape(f.text(1e6)), escape(profile::to_string(f.origin)),
          f.quality ? escape(fmt::format("mean {:.1f}%, max {:.1f}% over {}",
                                         100 * f.quality->mean_relative_error,
                                         100 * f.quality->max_relative_error, f.quality->points))
                    : absent_cell("none given"),
          escape(f.note));
    }
    out += "</tbody></table>\n";
  }
  return out + "</section>\n";
}

std::string contention_section(const Profile& p) {
  std::string out =
      "<section id=\"contention\">\n<h2>Contention (Amato et al. (1999), section 4; seconds per "
      "access)</h2>\n";
  if (!p.contention) {
    out += absent_paragraph(absent_reason(p, "contention measurements", {"contention"}));
    return out + "</section>\n";
  }
  const profile::Contention& k = *p.contention;
  std::string bsp;
  for (const auto& [name, b] : {std::pair{"QSM", &k.qsm}, {"EBSP", &k.ebsp}, {"DXBSP", &k.dxbsp}}) {
    if (!*b) continue;
    const profile::BspParameters& x = **b;
    bsp += fmt::format(
        "<tr><th>{}</th><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        name, value_html(x.g1_min), value_html(x.g1_max), value_html(x.g2_min),
        value_html(x.g2_max));
  }
  if (!bsp.empty()) {
    out +=
        "<h3>BSP-like functions: max{g1 H, g2 K}</h3>\n<table>\n<thead><tr><th>model</th><th>g1 "
        "min</th><th>g1 max</th><th>g2 min</th><th>g2 max</th></tr></thead>\n<tbody>\n" +
        bsp + "</tbody></table>\n";
  }
  std::string weights;
  for (const auto& [name, w] : {std::pair{"F1", &k.f1}, {"F2", &k.f2}, {"F3", &k.f3}}) {
    if (!*w) continue;
    for (const std::string& count : profile::known_count_terms()) {
      const auto it = (*w)->find(count);
      if (it != (*w)->end()) weights += quantity_row(std::string(name) + " " + count, it->second);
    }
  }
  if (!weights.empty()) {
    out += "<h3>Weights per counted event (counts: " + escape(k.counts) + ")</h3>\n<table>\n" +
           kQuantityHeader + "<tbody>\n" + weights + "</tbody></table>\n";
  }
  if (k.banks) out += fmt::format("<p>Banks (F3): {}.</p>\n", *k.banks);
  if (bsp.empty() && weights.empty()) {
    out += absent_paragraph(absent_reason(p, "contention parameters", {"contention"}));
  }
  return out + "</section>\n";
}

std::string not_fitted_section(const Page& page) {
  const Profile& p = page.profile;
  std::string out = "<section id=\"not-fitted\">\n<h2>Not measured, not fitted, not drawn</h2>\n";
  std::vector<std::string> items;
  if (p.memory.empty()) items.push_back(absent_reason(p, "memory levels"));
  if (!p.compute.peak_flops_per_core && !p.compute.peak_flops_per_node) {
    items.push_back(absent_reason(p, "peak rate"));
  }
  if (p.compute.kernels.empty()) items.push_back(absent_reason(p, "per-operation kernel times"));
  if (!p.point_to_point) items.push_back(absent_reason(p, "point-to-point measurements"));
  if (p.collectives.empty()) items.push_back(absent_reason(p, "collectives"));
  if (p.overheads.operations.empty() && p.overheads.forms.empty()) {
    items.push_back(absent_reason(p, "overheads"));
  }
  if (!p.contention) items.push_back(absent_reason(p, "contention measurements"));
  for (const Figure& f : page.figures) {
    if (f.svg.empty()) items.push_back("No " + f.id + " plot: " + f.missing);
  }
  if (!p.not_fitted.empty()) {
    out +=
        "<p>What the fit left out, in the profile's own words (<code>not_fitted</code>):</p>\n"
        "<ul>\n";
    for (const std::string& why : p.not_fitted) out += "<li>" + escape(why) + "</li>\n";
    out += "</ul>\n";
  }
  if (!items.empty()) {
    out += "<p>Parts this profile does not have:</p>\n<ul>\n";
    for (const std::string& item : items) out += "<li class=\"absent\">" + escape(item) + "</li>\n";
    out += "</ul>\n";
  }
  if (p.not_fitted.empty() && items.empty()) {
    out += "<p>Everything the profile format holds was measured and fitted.</p>\n";
  }
  return out + "</section>\n";
}

std::string read_svg(const std::filesystem::path& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return {};
  return read_file(path);
}

// A folder of its own for one set of plots, removed when done.
struct ScratchFolder {
  std::filesystem::path path;
  ScratchFolder() {
    static std::atomic<int> counter{0};
    path = std::filesystem::temp_directory_path() /
           fmt::format("sonde-publish-{}-{}", ::getpid(), counter++);
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchFolder() {
    std::error_code error;
    std::filesystem::remove_all(path, error);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
};

std::string stem_of(const std::filesystem::path& source, std::set<std::string>& taken) {
  std::string base;
  for (char c : source.stem().string()) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.';
    base += plain ? c : '_';
  }
  if (base.empty() || base == "index") base = "profile-" + base;
  std::string stem = base;
  for (int i = 2; taken.count(stem); ++i) stem = fmt::format("{}-{}", base, i);
  taken.insert(stem);
  return stem;
}

// The rows of the comparison: a label and, per profile, a cell (empty: not measured).
struct CompareRow {
  std::string label;
  std::vector<std::string> cells;
  bool group = false;
  std::string absent = "not measured";
};

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string inline_svg(std::string_view svg, const std::string& prefix, const std::string& title) {
  const auto start = svg.find("<svg");
  if (start == std::string_view::npos) return {};
  const std::string_view text = svg.substr(start);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  // Every id and every reference to one: id='x' (after a space), href='#x' (xlink:href too) and
  // url(#x) become id='<prefix>x', href='#<prefix>x', url(#<prefix>x).
  const auto at = [&](std::size_t i, std::string_view what) {
    return text.compare(i, what.size(), what) == 0;
  };
  for (std::size_t i = 0; i < text.size();) {
    const bool after_space = i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1]));
    if (after_space && (at(i, "id='") || at(i, "id=\""))) {
      out.append(text.substr(i, 4)).append(prefix);
      i += 4;
    } else if (at(i, "href='#") || at(i, "href=\"#")) {
      out.append(text.substr(i, 7)).append(prefix);
      i += 7;
    } else if (at(i, "url(#")) {
      out.append("url(#").append(prefix);
      i += 5;
    } else {
      out += text[i++];
    }
  }
  // gnuplot's title ("Gnuplot") is what a browser shows on hovering: the plot's own instead.
  const auto title_start = out.find("<title>");
  const auto title_end = out.find("</title>");
  if (title_start != std::string::npos && title_end != std::string::npos &&
      title_end > title_start) {
    out.replace(title_start, title_end + 8 - title_start, "<title>" + escape(title) + "</title>");
  }
  out.insert(4, " role=\"img\" aria-label=\"" + escape(title) + "\"");
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::vector<Figure> draw_figures(const Profile& p, const std::filesystem::path& source) {
  std::vector<Figure> figures = {
      {"latency",
       "Load-to-use latency against working set: each level's plateau, hwloc's capacity "
       "(dashed) and where the latency curve steps (red). Drawn by sonde fit from the "
       "raw results.",
       "", ""},
      {"bandwidth",
       "Bandwidth against threads, one line per level and kernel; bars: the range over "
       "the level's working sets.",
       "", ""},
      {"roofline",
       "Roofline: attainable flop/s against arithmetic intensity, one ceiling per "
       "memory level; dots: ridge points.",
       "", ""},
      {"pingpong", "Point-to-point time against message size with the piecewise Hockney fit.", "",
       ""},
      {"collectives",
       "Collectives: time against n with the fitted forms, or, without forms, the "
       "measured points against message size.",
       "", ""},
  };
  const auto find = [&](const std::string& id) -> Figure& {
    return *std::find_if(figures.begin(), figures.end(),
                         [&](const Figure& f) { return f.id == id; });
  };
  const std::string prefix = p.machine.name.empty() ? "plot" : p.machine.name;
  const auto set_svg = [&](Figure& f, const std::string& text) {
    // The pages run no script: an SVG that carries one (or foreign HTML) is not inlined.
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower.find("<script") != std::string::npos ||
        lower.find("<foreignobject") != std::string::npos) {
      f.missing = "the SVG file holds a script or foreign content, which the pages do not carry";
      return;
    }
    f.svg = inline_svg(text, f.id + "-", prefix + ": " + f.id);
    if (f.svg.empty()) f.missing = "the SVG file holds no <svg> element";
  };

  // The latency curve: only the raw results have it, so only the folder of plots fit drew.
  Figure& latency = find("latency");
  const std::filesystem::path latency_file = source.parent_path() / p.machine.name / "latency.svg";
  if (p.memory.empty()) {
    latency.missing = absent_reason(p, "memory levels");
  } else if (p.provenance.origin == Origin::transcribed) {
    latency.missing = absent_reason(p, "latency curve");
  } else if (const std::string text = read_svg(latency_file); !text.empty()) {
    set_svg(latency, text);
    latency.caption += " (" + latency_file.generic_string() + ")";
  } else {
    latency.missing =
        "the latency curve is in the raw results, not in the profile, and there is no " +
        latency_file.generic_string() + " beside the profile (sonde fit draws it)";
  }

  // The rest from the profile alone.
  const auto reason_without_data = [&](const std::string& id) -> std::string {
    if (id == "bandwidth") {
      std::vector<std::string> keys;
      for (const MemoryLevel& level : p.memory) {
        for (const auto& [key, q] : level.bandwidth) keys.push_back(level.name + " " + key);
      }
      if (keys.empty()) return absent_reason(p, "memory bandwidth");
      return fmt::format(
          "it draws bandwidth against threads, from keys kernel/threads (triad/2); this profile "
          "gives {} only",
          fmt::join(keys, ", "));
    }
    if (id == "roofline") return roofline_missing(p);
    if (id == "pingpong") return absent_reason(p, "point-to-point measurements");
    return absent_reason(p, "collectives", {"collectives"});
  };
  if (!on_path("gnuplot")) {
    for (Figure& f : figures) {
      if (f.id != "latency") {
        f.missing =
            "gnuplot is not installed where this site was published (install gnuplot, "
            "Debian gnuplot-nox, and publish again)";
      }
    }
    return figures;
  }
  ScratchFolder scratch;
  try {
    plot::plot_profile(p, RunRecords{}, scratch.path);
    if (const auto roofline = plot::roofline_of(p)) {
      plot::plot_roofline(p.machine.name + ": roofline (peak per " + roofline->scope + ")",
                          *roofline, scratch.path);
    }
    for (Figure& f : figures) {
      if (f.id == "latency") continue;
      const std::string text = read_svg(scratch.path / (f.id + ".svg"));
      if (text.empty()) {
        f.missing = reason_without_data(f.id);
      } else {
        set_svg(f, text);
      }
    }
  } catch (const Error& e) {
    for (Figure& f : figures) {
      if (f.id != "latency" && f.svg.empty())
        f.missing = std::string("gnuplot failed: ") + e.what();
    }
  }
  return figures;
}

std::string profile_page(const Page& page) {
  const Profile& p = page.profile;
  std::string out = head("sonde datasheet: " + p.machine.name);
  out += "<nav><a href=\"index.html\">All machines</a><a href=\"" + escape(page.stem) +
         ".yaml\">The profile (YAML)</a><a href=\"#memory\">Memory</a><a "
         "href=\"#roofline\">Roofline</a><a href=\"#point-to-point\">Point-to-point</a><a "
         "href=\"#collectives\">Collectives</a><a href=\"#overheads\">Overheads</a><a "
         "href=\"#contention\">Contention</a><a href=\"#not-fitted\">Not fitted</a></nav>\n";
  out += "<h1>" + escape(p.machine.name) + "</h1>\n";
  out += "<p class=\"lead\">" +
         escape(p.provenance.origin == Origin::transcribed
                    ? "Transcribed from " + p.provenance.citation
                    : fmt::format("Measured by sonde {} on {}, {}", p.provenance.sonde_version,
                                  p.provenance.host, p.provenance.date)) +
         "</p>\n";
  out += "<section id=\"machine\">\n<h2>Machine and provenance</h2>\n<table>\n<tbody>\n" +
         provenance_rows(p) + "</tbody></table>\n</section>\n";
  out += compute_section(p);
  out += memory_section(page);
  out += roofline_section(page);
  out += point_to_point_section(page);
  out += collectives_section(page);
  out += overheads_section(p);
  out += contention_section(p);
  out += not_fitted_section(page);
  out += footer("From " + escape(page.source) + " (copied beside this page as <a href=\"" +
                escape(page.stem) + ".yaml\">" + escape(page.stem) + ".yaml</a>).");
  return out;
}

std::string index_page(const std::vector<Page>& pages, const std::vector<Failure>& failures) {
  std::string out = head("sonde datasheets: machine profiles side by side");
  out += "<nav><a href=\"index.html\">All machines</a>";
  for (const Page& page : pages) {
    out +=
        "<a href=\"" + escape(page.stem) + ".html\">" + escape(page.profile.machine.name) + "</a>";
  }
  out += "</nav>\n<h1>Machine profiles side by side</h1>\n";
  out += fmt::format(
      "<p class=\"lead\">{} profile{}: measured by sonde, or transcribed from the papers. Each "
      "machine's name leads to its datasheet. \"not measured\": the profile does not have the "
      "value; its datasheet says why.</p>\n",
      pages.size(), pages.size() == 1 ? "" : "s");

  std::vector<CompareRow> rows;
  const std::size_t n = pages.size();
  const auto group = [&](const std::string& label) { rows.push_back({label, {}, true, ""}); };
  std::string absent_text = "not measured";  // what an empty cell of the next rows says
  const auto row = [&](const std::string& label,
                       const std::function<std::string(const Profile&)>& cell) {
    CompareRow r{label, {}, false, absent_text};
    bool any = false;
    for (const Page& page : pages) {
      r.cells.push_back(cell(page.profile));
      any = any || !r.cells.back().empty();
    }
    if (any) rows.push_back(std::move(r));
  };
  const auto quantity = [](const std::optional<Quantity>& q) {
    return q ? value_html(*q) : std::string();
  };
  group("Machine");
  row("origin", [](const Profile& p) {
    return p.provenance.origin == Origin::transcribed
               ? "transcribed <span class=\"iv\">" + escape(p.provenance.citation) + "</span>"
               : "measured <span class=\"iv\">" +
                     escape(p.provenance.host + ", " + p.provenance.date) + "</span>";
  });
  absent_text = "not given";
  row("CPU", [](const Profile& p) { return escape(p.provenance.cpu_model); });
  row("nodes", [](const Profile& p) {
    return p.machine.nodes ? std::to_string(*p.machine.nodes) : std::string();
  });
  row("cores per node", [](const Profile& p) {
    return p.machine.cores_per_node ? std::to_string(*p.machine.cores_per_node) : std::string();
  });
  absent_text = "not measured";
  row("clock", [&](const Profile& p) { return quantity(p.machine.clock); });
  group("Compute");
  row("peak per core", [&](const Profile& p) { return quantity(p.compute.peak_flops_per_core); });
  row("peak per node", [&](const Profile& p) { return quantity(p.compute.peak_flops_per_node); });
  group("Memory levels");
  std::vector<std::string> levels;
  for (const Page& page : pages) {
    for (const MemoryLevel& l : page.profile.memory) {
      if (std::find(levels.begin(), levels.end(), l.name) == levels.end()) levels.push_back(l.name);
    }
  }
  const auto level_of = [](const Profile& p, const std::string& name) -> const MemoryLevel* {
    for (const MemoryLevel& l : p.memory)
      if (l.name == name) return &l;
    return nullptr;
  };
  for (const std::string& name : levels) {
    row(name + " capacity (hwloc)", [&](const Profile& p) {
      const MemoryLevel* l = level_of(p, name);
      return l && l->capacity_bytes
                 ? "<span class=\"v\">" +
                       escape(format_bytes(static_cast<double>(*l->capacity_bytes))) + "</span>"
                 : std::string();
    });
    row(name + " latency", [&](const Profile& p) {
      const MemoryLevel* l = level_of(p, name);
      return l ? quantity(l->latency) : std::string();
    });
    row(name + " bandwidth (best kernel, most threads)", [&](const Profile& p) {
      const MemoryLevel* l = level_of(p, name);
      if (!l) return std::string();
      const auto [key, best] = profile::best_bandwidth(*l);
      return best ? value_html(*best) + " <span class=\"iv\">(" + escape(key) + ")</span>"
                  : std::string();
    });
  }
  group("Point-to-point (Hockney)");
  row("t0, smallest messages", [](const Profile& p) {
    return p.point_to_point && !p.point_to_point->segments.empty()
               ? value_html(p.point_to_point->segments.front().t0)
               : std::string();
  });
  row("r_inf, largest messages", [](const Profile& p) {
    return p.point_to_point && !p.point_to_point->segments.empty()
               ? value_html(p.point_to_point->segments.back().r_inf)
               : std::string();
  });
  row("SCCR = P_peak t0 (derived, flops)", [](const Profile& p) {
    const auto ratio = profile::sccr(p);
    return ratio ? fmt::format("<span class=\"v derived\">{:.0f}</span>", *ratio) : std::string();
  });
  group("Collectives at n = 2 (m = 1 KiB where the operation moves data)");
  std::vector<std::string> operations;
  for (const Page& page : pages) {
    for (const auto& [name, c] : page.profile.collectives) {
      if (std::find(operations.begin(), operations.end(), name) == operations.end()) {
        operations.push_back(name);
      }
    }
  }
  std::sort(operations.begin(), operations.end(), [](const std::string& a, const std::string& b) {
    return (a == "barrier") != (b == "barrier") ? a == "barrier" : a < b;
  });
  for (const std::string& op : operations) {
    row(op, [&](const Profile& p) {
      const auto it = p.collectives.find(op);
      if (it == p.collectives.end()) return std::string();
      try {
        const profile::CollectiveEstimate e = it->second.estimate(2, op == "barrier" ? 0 : 1024);
        Quantity q = derived(e.seconds, "s");
        q.origin = it->second.has_forms() ? Origin::derived : Origin::measured;
        q.interval = e.range;
        return "<span title=\"" + escape(e.how) + "\">" + value_html(q) + "</span>";
      } catch (const Error&) {
        return std::string();
      }
    });
  }
  group("Overheads");
  std::set<std::string> overheads;
  for (const Page& page : pages) {
    for (const auto& [name, q] : page.profile.overheads.operations) overheads.insert(name);
  }
  for (const std::string& name : overheads) {
    row(name, [&](const Profile& p) {
      const auto it = p.overheads.operations.find(name);
      return it == p.overheads.operations.end() ? std::string() : value_html(it->second);
    });
  }
  group("Provenance");
  row("not fitted", [](const Profile& p) {
    return p.not_fitted.empty() ? std::string("nothing")
                                : fmt::format("{} item{} (see the datasheet)", p.not_fitted.size(),
                                              p.not_fitted.size() == 1 ? "" : "s");
  });

  out += "<div class=\"wide\">\n<table class=\"compare\">\n<thead><tr><th></th>";
  for (const Page& page : pages) {
    out += "<th><a href=\"" + escape(page.stem) + ".html\">" + escape(page.profile.machine.name) +
           "</a></th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const CompareRow& r : rows) {
    if (r.group) {
      out += fmt::format("<tr class=\"group\"><th colspan=\"{}\">{}</th></tr>\n", n + 1,
                         escape(r.label));
      continue;
    }
    out += "<tr><th>" + escape(r.label) + "</th>";
    for (const std::string& cell : r.cells) {
      out += "<td class=\"num\">" + (cell.empty() ? absent_cell(r.absent) : cell) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>\n</div>\n";
  out +=
      "<p>Collectives: from the profile's form in n, or from its points measured at n = 2 "
      "(hover over a value for how it was reached). Bandwidth: each level's best kernel at "
      "the most threads measured, the kernel and threads named.</p>\n";
  if (!failures.empty()) {
    out += "<h2 id=\"not-published\">Not published</h2>\n<ul>\n";
    for (const Failure& f : failures) {
      out += "<li><code>" + escape(f.source) + "</code>: " + escape(f.message) + "</li>\n";
    }
    out += "</ul>\n";
  }
  out += footer("");
  return out;
}

int publish_command(const PublishOptions& options, std::ostream& out, std::ostream& err) {
  // The files: each given profile, and each folder's *.yaml in name order.
  std::vector<std::filesystem::path> files;
  for (const std::string& input : options.inputs) {
    std::error_code error;
    if (std::filesystem::is_directory(input, error)) {
      std::vector<std::filesystem::path> found;
      for (const auto& entry : std::filesystem::directory_iterator(input)) {
        const auto extension = entry.path().extension();
        if (entry.is_regular_file() && (extension == ".yaml" || extension == ".yml")) {
          found.push_back(entry.path());
        }
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) throw input_error(input, "a folder with no profile (*.yaml) in it");
      files.insert(files.end(), found.begin(), found.end());
    } else if (std::filesystem::is_regular_file(input, error)) {
      files.emplace_back(input);
    } else {
      throw input_error(input, "no such profile or folder");
    }
  }
  if (files.empty()) throw usage_error("profiles", "name a profile or a folder of profiles");

  if (!on_path("gnuplot")) {
    err << "publish: gnuplot is not on the PATH: the pages are written without the plots drawn "
           "from the profiles, and say so\n";
  }
  std::vector<Page> pages;
  std::vector<Failure> failures;
  std::set<std::string> taken;
  for (const std::filesystem::path& file : files) {
    try {
      Page page;
      page.profile = profile::read_profile(file);
      page.source = file.generic_string();
      page.stem = stem_of(file, taken);
      page.figures = draw_figures(page.profile, file);
      pages.push_back(std::move(page));
    } catch (const Error& e) {
      err << "publish: not published: " << e.what() << "\n";
      failures.push_back({file.generic_string(), e.what()});
    }
  }
  if (pages.empty()) {
    throw input_error(files.front().generic_string(),
                      "no profile could be read; nothing published");
  }

  std::filesystem::create_directories(options.output);
  for (const Page& page : pages) {
    const auto html = options.output / (page.stem + ".html");
    write_file_atomically(html, profile_page(page));
    write_file_atomically(options.output / (page.stem + ".yaml"), read_file(page.source));
    out << html.generic_string() << ": " << page.profile.machine.name << "\n";
  }
  const auto index = options.output / "index.html";
  write_file_atomically(index, index_page(pages, failures));
  out << index.generic_string() << ": " << pages.size() << " profile"
      << (pages.size() == 1 ? "" : "s") << " side by side";
  if (!failures.empty()) out << ", " << failures.size() << " not published (see above)";
  out << "\n";
  return failures.empty() ? 0 : static_cast<int>(ExitCode::bad_input);
}

}  // namespace sonde::publish
