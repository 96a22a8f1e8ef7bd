// The resumable results file of `futexsim sweep` (--out): one JSON line a
// run, each the run's own JSON with where it sits in the grid; what a file
// already holds, checked line by line against this grid before a resume
// adds to it.
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "cli/sweep_grid.h"

namespace futexsim::cli {

// The line --out gets for run `run_index`: its `futexsim run --json` output
// and where it sits in the grid.
std::string result_line(const sweep_grid& g, std::size_t run_index, const std::string& run_json);

// The run indices --out already holds (none if it does not exist), after
// dropping a last line cut short by an interruption. A line of another grid,
// or one that is not what this grid would have written, is a usage_error.
std::set<std::size_t> load_done(const std::string& path, const sweep_grid& g);

}  // namespace futexsim::cli
