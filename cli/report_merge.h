// `futexsim report`'s input: the JSON Lines of one sweep (one file or its
// shards) merged into cells, each line checked (one grid, every run once,
// the seeds a sweep gives), the runs counted per cell by outcome and
// warning kind.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace futexsim::cli {

using json = nlohmann::ordered_json;

// The cell's parameters, in the grid's order of dimensions.
inline const std::vector<std::string> dims{"machine",  "policy",  "workload", "kernel", "cpus",
                                           "precheck", "ramp_ms", "arm",      "threads"};

struct cell_stats {
    std::size_t index = 0;
    json params;
    std::size_t runs = 0, latched = 0, transient = 0, never = 0;
    std::vector<double> mops;
    // Runs that warned, and of them those that warned of each kind
    // (warning_kinds below): a cell with any is suspect.
    std::size_t warned = 0;
    std::map<std::string, std::size_t> warned_of;
};

// The progress detectors' tags (sim/timed/progress_watch.h), then "other": the
// model's own warnings and any a real backend prints.
inline const std::vector<std::string> warning_kinds{"rcu-stall", "soft-lockup", "spin-lockup",
                                                    "event-storm", "other"};

struct merged {
    std::string grid_id;
    std::size_t grid_runs = 0, runs = 0;
    std::map<std::size_t, cell_stats> cells;  // by cell index: the grid's order
};

// The cell's field for runs that warned of `kind`: warned_rcu_stall, ...
std::string warned_key(std::string kind);

// The files' runs, merged and checked; a usage_error names the first bad
// line.
merged read_files(const std::vector<std::string>& files);

}  // namespace futexsim::cli
