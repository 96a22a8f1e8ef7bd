// Bounded exhaustive exploration (`futexsim replay --strategy dfs`): every
// schedule of one case, depth first, each run replayed from the start with
// the search's strategy (sim/explore/dfs_strategy.h), which plays the path
// to the point being explored and then takes the first candidate allowed.
//
// Time is a choice here (run_config::timing_choices): a grace period may
// end at any scheduling point once its readers have left, a timeout at any
// point after its sleep began. Bounds: at most `max_preemptions` switches
// away from a task that could have gone on (CHESS's context bound, loom's
// LOOM_MAX_PREEMPTIONS), at most run_config::max_gp_ends grace periods
// ending while something else could run, at most run_config::max_steps
// steps.
//
// The reduction is sleep sets (Godefroid, 1996): once the subtree of step
// t at a point is explored, t sleeps in its siblings' subtrees until a step
// that does not commute with t runs. Steps commute when neither is global
// and neither writes what the other touches (sim/explore/footprint.h: the
// accesses the explorer sees). Sleep sets prune transitions, never states:
// every state a schedule reaches, the reduced search reaches too, so the
// per-step invariants are checked on all of them. With a finite preemption
// bound that guarantee is relative: a schedule pruned as equivalent to one
// explored may have been within the bound while its explored twin is not
// (docs/testing.md, "Exhaustive exploration").
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "sim/explore/dfs_strategy.h"
#include "sim/explore/explore_run.h"

namespace futexsim::sim::explore {

struct dfs_options {
    unsigned max_preemptions = 2;
    bool reduction = true;
    std::uint64_t max_executions = 0;  // 0: no limit; past it the search stops, incomplete
    bool collect_final_states = false;
    // Asked between runs; true stops the search (SIGINT), incomplete.
    std::function<bool()> interrupted;
};

struct dfs_result {
    std::uint64_t executions = 0;  // complete runs: to the end, to a violation or to the step bound
    std::uint64_t at_step_bound = 0;  // of which cut by max_steps
    std::uint64_t pruned = 0;      // runs the reduction stopped: every candidate asleep
    std::uint64_t preemption_cuts = 0;  // choices left out because they would pass the preemption bound
    std::uint64_t longest = 0;     // steps of the longest run
    bool complete = true;          // false: max_executions reached or interrupted
    // The first violation, and the configuration that replays it
    // (--strategy replay with its schedule, timing as choices).
    std::optional<run_outcome> failure;
    std::optional<run_config> failing;
    std::set<std::string> final_states;  // collect_final_states
};

// `cfg`'s strategy is ignored; timing_choices is switched on.
dfs_result explore_dfs(const run_config& cfg, const case_spec& c, const dfs_options& opt);

// A violation found, made smaller: the fewest preemptions that still find
// one, then operations dropped one at a time while the search (each
// attempt limited to `budget` executions) still finds one.
struct dfs_shrunk {
    case_spec c;
    unsigned preemptions = 0;
    dfs_result result;
    unsigned attempts = 0;
};
dfs_shrunk shrink_dfs_failure(const run_config& cfg, const case_spec& c, const dfs_options& opt,
                              std::uint64_t budget = 20000);

// "preemptions <= 2, grace periods <= 2, steps <= 400, reduction on"
std::string dfs_bounds_text(const run_config& cfg, const dfs_options& opt);

}  // namespace futexsim::sim::explore
