// What the observers of one explored run share (sim/explore/explore_observer.h):
// the explorer, the process it runs, the invariants' ghost state, the pivot
// statistics and the run's configuration.
#pragma once

#include "run/pivot_stats.h"
#include "sim/explore/explored_model.h"
#include "sim/explore/invariants.h"
#include "sim/explore/run_config.h"

namespace futexsim::sim::explore {

struct run_context {
    explore_env& env;
    explored_mm& mm;
    const model::futex_data<explore_env>&
        global;  // the global hash, before the process has a private one
    const invariants& inv;
    const pivot_stats& pivots;  // the clock is the step count
    const run_config& cfg;
};

}  // namespace futexsim::sim::explore
