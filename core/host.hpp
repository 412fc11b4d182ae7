// Where and when a record was made: the host's name and the time in UTC, as result files, run
// contexts and check records write them.
#pragma once

#include <string>

namespace sonde {

std::string host_name();  // "unknown-host" where the system will not say
// "2026-11-21T14:05:09Z"
std::string utc_timestamp();

}  // namespace sonde
