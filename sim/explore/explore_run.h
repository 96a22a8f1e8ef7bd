// One explored run: a case (sim/explore/explore_case.h) on the explorer
// (sim/explore/explore_env.h) under one policy and one schedule, with the
// safety invariants checked after every step (sim/explore/invariants.h) and
// the liveness property the run asks for.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/explore/explore_case.h"
#include "sim/explore/footprint.h"
#include "sim/explore/run_config.h"

namespace futexsim::sim::explore {

class dfs_tree;

// What a driver of many runs (sim/explore/dfs.h) plugs into one.
struct run_hooks {
    // The search whose strategy runs this one instead of cfg.strategy's
    // (sim/explore/dfs_strategy.h); it reads what each step touched, so
    // footprints are recorded.
    dfs_tree* search = nullptr;
    bool final_state = false;  // describe the end state (run_outcome::final_state)
};

struct run_outcome {
    std::optional<std::string> violation;  // the first property broken, if any
    std::uint64_t steps = 0;
    unsigned long grace_periods = 0;
    unsigned long pivots_installed = 0;
    unsigned long longest_pivot_gps = 0;
    std::vector<unsigned> schedule;  // the choices made, replayable with --strategy replay
    std::vector<std::string> warnings;  // distinct model warnings, with fatal_warnings off
    // With run_hooks:
    bool stopped = false;                    // the search's strategy stopped it
    std::vector<step_footprint> footprints;  // one per step
    // What two runs that differ only in the order of commuting steps end
    // with alike: each thread's return values and where it ended, the
    // futex words, the hash, the count, the grace periods, the verdict.
    std::string final_state;
};

run_outcome explore_case(const run_config& cfg, const case_spec& c, const trace_sink& trace = {},
                         const run_hooks* hooks = nullptr);

// The command line that replays this run and prints its trace.
std::string replay_command(const run_config& cfg, const case_spec& c, const std::string& program = "futexsim");

std::string_view liveness_name(liveness l);
std::optional<liveness> parse_liveness(std::string_view name);

// Names of the mutations a test-only build can switch on ("" in normal builds).
std::vector<std::string> mutation_names();

}  // namespace futexsim::sim::explore
