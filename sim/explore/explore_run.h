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

#include "model/kernel_version.h"
#include "sim/explore/explore_case.h"
#include "sim/explore/footprint.h"
#include "sim/schedule.h"

namespace futexsim::sim::explore {

// Which liveness property a run checks, on top of the safety invariants.
enum class liveness : std::uint8_t {
    none,
    // Every pivot completes within `pivot_bound_gps` grace periods of its
    // request, whatever the load (the fixes' promise; stock breaks it).
    bounded,
    // A pivot pending when the process goes quiet (no thread in a futex
    // call) for at least two full grace periods is installed by the end of
    // the first futex operation after the quiet window (stock's promise).
    after_quiet,
    // Once a gate is closed (a hash parked; under rwsem-gate also its
    // `block` set), no futex call that begins takes a reference on the hash
    // being replaced: it drains once the calls in flight leave
    // (sim/explore/parked_drains.h). Bounded liveness stated as safety.
    parked_drains,
};

struct run_config {
    std::string policy = "stock";
    model::kernel_version kernel = model::default_kernel_version;  // whose futex code runs
    unsigned cpus = 2;
    strategy_options strategy;  // kind, seed, pct depth, schedule prefix
    std::uint64_t max_steps = 3000;
    std::uint64_t gp_steps = 12;  // shortest grace period, in steps per live thread
    liveness check = liveness::none;
    unsigned long pivot_bound_gps = 10;  // tests/properties/property_support.h: liveness_bound_gps
    // When nothing can run any more, every thread left must be asleep in
    // futex_wait() (not in a lock, wait_var_event() or synchronize_rcu()).
    bool check_sleepers = true;
    // A model warning (WARN_ON_ONCE, might_sleep()) is a violation; when
    // false the run only reports it, to check the other properties past it.
    bool fatal_warnings = true;
    std::string mutation;  // test-only builds (FUTEXSIM_MUTATIONS): a mutation point to switch on
    // Grace-period ends and timeouts as scheduling choices, at most
    // `max_gp_ends` grace periods ending while something else could run
    // (explore_env::config::timing_choices): what --strategy dfs explores.
    bool timing_choices = false;
    unsigned long max_gp_ends = 2;
};

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
    bool stopped = false;                  // the search's strategy stopped it
    std::vector<step_footprint> footprints;  // one per step
    // What two runs that differ only in the order of commuting steps end
    // with alike: each thread's return values and where it ended, the
    // futex words, the hash, the count, the grace periods, the verdict.
    std::string final_state;
};

// Called with one line per step (and a header), when tracing.
using trace_sink = std::function<void(const std::string&)>;

run_outcome explore_case(const run_config& cfg, const xcase& c, const trace_sink& trace = {},
                         const run_hooks* hooks = nullptr);

// The command line that replays this run and prints its trace.
std::string replay_command(const run_config& cfg, const xcase& c, const std::string& program = "futexsim");

std::string_view liveness_name(liveness l);
std::optional<liveness> parse_liveness(std::string_view name);

// Names of the mutations a test-only build can switch on ("" in normal builds).
std::vector<std::string> mutation_names();

}  // namespace futexsim::sim::explore
