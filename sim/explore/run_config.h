// What one explored run is asked to do (sim/explore/explore_run.h): the
// policy, kernel and machine, the schedule strategy, the bounds, which
// properties it checks, and where its trace goes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "model/kernel_version.h"
#include "sim/explore/memory_model.h"
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
    // sc, tso or arm64 (sim/explore/store_buffers.h): under the weak ones
    // stores wait in store buffers and drain as scheduling choices.
    memory_model memory = memory_model::sc;
};

// Called with one line per step (and a header), when tracing.
using trace_sink = std::function<void(const std::string&)>;

}  // namespace futexsim::sim::explore
