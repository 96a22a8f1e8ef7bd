// The depth-first search as a schedule strategy (sim/schedule.h), the way
// shuttle's DFS is one Scheduler among others: `dfs_tree` is the tree of
// scheduling points the search has walked, across runs; each run gets a
// strategy over it (strategy_for()) that replays the path to the point
// being explored and then extends it, or stops the run where every
// candidate within the bounds sleeps (sleep sets: sim/explore/dfs.h says
// what they prune and why it is sound).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "sim/explore/footprint.h"
#include "sim/schedule.h"

namespace futexsim::sim::explore {

class explore_env;

inline constexpr unsigned unbounded_preemptions = std::numeric_limits<unsigned>::max();

class dfs_tree {
public:
    dfs_tree(unsigned max_preemptions, bool reduction)
        : max_preemptions_(max_preemptions), reduction_(reduction)
    {
    }

    // The strategy of the next run, which asks `env` what each step so far
    // touched and which candidates are sleepers a timeout would wake.
    std::unique_ptr<schedule_strategy> strategy_for(const explore_env& env);
    // A new run starts at the root (strategy_for() does it; a test driving
    // choose() by hand calls it).
    void begin_run() { depth_ = 0; }
    // After a run: what each step of it touched, for the siblings of the
    // step taken at each point.
    void run_ended(const std::vector<step_footprint>& footprints);
    // Moves to the deepest point with a candidate left; false when there
    // is none (the search is over).
    bool backtrack();
    // Choices left out because they would pass the preemption bound,
    // counted at the first visit of each point.
    std::uint64_t preemption_cuts() const { return preemption_cuts_; }

    // The index of the candidate to take at the next point of the current
    // run, or nullopt: every candidate within the bound is asleep.
    // `timer[i]`: candidate i sleeps, and taking it ends its sleep by its
    // timeout. `so_far`: what each step of this run touched until now.
    std::optional<std::size_t> choose(const std::vector<std::uint32_t>& candidates,
                                      const std::vector<bool>& timer,
                                      const std::vector<step_footprint>& so_far);

private:
    // A step that sleeps: a candidate and what its step touched when it ran.
    struct sleeper {
        std::uint32_t id;
        step_footprint fp;
    };
    // One scheduling point on the current path.
    struct node {
        std::vector<std::uint32_t> cands;
        std::vector<bool> timer;
        std::vector<bool> done;
        std::size_t chosen = 0;
        std::vector<sleeper> sleep;     // asleep on entry: never taken here
        std::vector<sleeper> explored;  // taken here already, with their steps
        unsigned preemptions = 0;       // spent before this point
        std::int64_t last = -1;         // the task of the last step before it (-1: none)
        std::size_t fp_index = 0;       // the step taken here: footprints[fp_index]
        step_footprint chosen_fp;       // what the step last taken here touched
    };
    static bool asleep(const std::vector<sleeper>& s, std::uint32_t id);
    unsigned cost(const node& n, std::size_t i) const;
    bool within_bound(const node& n, std::size_t i) const;
    std::optional<std::size_t> next(node& n, bool count_cuts);

    unsigned max_preemptions_;
    bool reduction_;
    std::vector<node> stack_;
    std::size_t depth_ = 0;  // the point the current run reached
    std::uint64_t preemption_cuts_ = 0;
};

}  // namespace futexsim::sim::explore
