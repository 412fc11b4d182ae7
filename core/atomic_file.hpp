// Files are written whole or not at all: a temporary file in the same folder, flushed to disk,
// then renamed over the target. An interrupted run never leaves a half-written file that looks
// whole.
#pragma once

#include <filesystem>
#include <string_view>

namespace sonde {

// Writes `content` to `path` atomically, creating missing parent folders. Throws Error naming the
// path and the system's reason on failure; the previous content of `path`, if any, is then intact.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Creates `folder` if needed and proves it writable by creating and removing a file in it, so that
// a long run fails before it starts rather than when it has results to lose.
void ensure_writable_folder(const std::filesystem::path& folder);

// Reads a whole file; throws Error naming the path when it cannot.
std::string read_file(const std::filesystem::path& path);

}  // namespace sonde
