// `sonde publish`: a static HTML datasheet of machine profiles. One page per profile (the machine
// and its provenance, compute, memory levels, roofline, point-to-point with its Hockney fit,
// collectives, overheads, contention, and what was not measured or not fitted, and why), each
// number with its unit and interval, every plot inline as SVG; and index.html, all the profiles
// side by side. The pages need no server, no network and no JavaScript: one embedded stylesheet
// each, no external resource. Layout: docs/publishing.md.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "profile/profile.hpp"

namespace sonde::publish {

// A figure of a page: an inline <svg> element, or why there is none.
struct Figure {
  std::string id;       // "latency", "bandwidth", "roofline", "pingpong", "collectives"
  std::string caption;  // what it shows and where it came from
  std::string svg;      // ready to inline; empty: not drawn
  std::string missing;  // why not, when svg is empty
};

// One profile's page.
struct Page {
  profile::Profile profile;
  std::string source;  // the file it was read from, as given
  std::string stem;    // the page is <stem>.html, the profile's copy <stem>.yaml
  std::vector<Figure> figures;
};

// A file given that could not be read as a profile.
struct Failure {
  std::string source;
  std::string message;  // the reader's Error: "<file>: <key path>: <problem>"
};

// Text for HTML element content and attribute values: & < > " ' escaped.
std::string escape(std::string_view text);

// An SVG file's text (as gnuplot writes it) made ready to inline in a page: the XML declaration
// dropped, its title replaced by `title`, and every id (with the references to it) prefixed by
// `prefix`, so that several plots on one page do not share ids.
std::string inline_svg(std::string_view svg, const std::string& prefix, const std::string& title);

// The figures of a profile read from `source`: the latency curve from the plots folder beside it
// (<folder of source>/<machine name>/latency.svg, drawn by `sonde fit` from the raw results, which
// the profile does not hold), the others drawn from the profile with gnuplot's svg terminal. A
// figure that cannot be drawn says why (no data in the profile, gnuplot missing, gnuplot failed).
std::vector<Figure> draw_figures(const profile::Profile& profile,
                                 const std::filesystem::path& source);

std::string profile_page(const Page& page);
// The comparison of every page's profile; the failures listed under it.
std::string index_page(const std::vector<Page>& pages, const std::vector<Failure>& failures);

struct PublishOptions {
  std::vector<std::string> inputs;  // profiles (.yaml) and folders of them (their *.yaml files)
  std::filesystem::path output;     // the site's folder
};

// Reads every profile, writes <output>/index.html, <stem>.html and <stem>.yaml for each (each file
// atomically) and prints what it wrote to `out`. A profile that cannot be read is named with its
// Error on `err`, listed on the index as not published, and the others are still published; the
// return value is then ExitCode::bad_input (3), else 0. An input that is neither a file nor a
// folder, or no profile at all, is an input Error before anything is written.
int publish_command(const PublishOptions& options, std::ostream& out, std::ostream& err);

}  // namespace sonde::publish
