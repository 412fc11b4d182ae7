// Small statistics every folder needs, in one place.
#pragma once

#include <vector>

namespace sonde {

// The median: the middle value, or the mean of the two middle ones. Throws std::invalid_argument
// for no values.
double median(std::vector<double> values);

}  // namespace sonde
