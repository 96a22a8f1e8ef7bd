// Paths the user names: what futexsim reads must be a regular file of a
// bounded size (a FIFO blocks for ever, /dev/zero never ends, a directory
// reads as an I/O error), what it writes must not be a directory or a
// device, and a name that goes into JSON must be UTF-8. Each check throws
// usage_error with one line naming the flag (or "report") and the path.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

#include "machine/machine.h"

namespace futexsim::cli {

// The most any input file may hold; sweep files of the largest documented
// grids are well under it, a machine file is a few kB.
inline constexpr std::size_t max_input_bytes = std::size_t{1} << 30;

// The whole of `path`, a regular file; `what` names it in errors
// ("--machine-file", "report").
std::string read_input_file(const std::string& what, const std::string& path, std::size_t max_bytes = max_input_bytes);

// For an option that names a file to read, checked as it is parsed: the
// reason it cannot be opened, as the system says it ("No such file or
// directory", "Too many levels of symbolic links", "Permission denied");
// what it is, when it is not a regular file. The help shows FILE.
CLI::Validator readable_file();

// A machine file is a few kB; more is not one.
inline constexpr std::size_t max_machine_file_bytes = std::size_t{16} << 20;

// `path` read as above and parsed as a machine file; `what` is the flag.
// Errors of the file's content come as the parser's std::invalid_argument.
// With `expected_hash` (content_hash() of what a sweep read), content that
// differs from it is a usage_error: a run of a sweep uses what the sweep hashed.
machine read_machine_file(const std::string& what, const std::string& path,
                          const std::string& expected_hash = "");

// Whether `path` exists (as anything, a dangling link included).
bool path_exists(const std::string& path);

// An output path: missing, or a regular file (a FIFO would block, a
// directory or /dev/full fail half-way).
void check_output_path(const std::string& what, const std::string& path);

// A file name that ends up in JSON text (nlohmann's dump throws on bytes
// that are not UTF-8).
void check_utf8_name(const std::string& what, const std::string& path);
bool is_utf8(const std::string& s);

// The deepest nesting of [ and { in JSON text (strings skipped): nlohmann
// recurses to copy, compare and print a value, so a deep line must be
// refused before it is parsed.
std::size_t json_nesting_depth(const std::string& text);

}  // namespace futexsim::cli
