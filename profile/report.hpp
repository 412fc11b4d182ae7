// What `sonde show`, `sonde validate` and `sonde compare` print: a profile in the papers' notation
// (Hockney's t = t0 + m / r_inf, Xu and Hwang's (1995) Tables 5 and 6, Amato et al.'s (1999)
// g-parameters), and two profiles side by side with the ratio of every value they share.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "profile/profile.hpp"

namespace sonde::profile {

// Humane units for a quantity ("46 us", "35.5 MB/s", "266 Mflop/s"), its interval in brackets.
std::string format_quantity(const Quantity& quantity);
// A value alone in the same units ("46 us").
std::string format_value(double value, const std::string& unit);
// A collective's forms in the papers' notation, t in us and m in bytes ("(52 log n) + (0.029 log
// n) m"), or where its measured points are when it has no form in n.
std::string format_collective(const Collective& collective);

std::string format_profile(const Profile& profile);

// `sonde validate`: reads each profile in turn and writes a line for each that is valid; the first
// that is not throws its input Error.
void validate_profiles(const std::vector<std::string>& paths, std::ostream& out);

// One line per value present in both profiles: a's value, b's, and b / a; then what only one has.
std::string compare_profiles(const Profile& a, const Profile& b);

}  // namespace sonde::profile
