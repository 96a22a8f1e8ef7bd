// The reduction loses nothing: on tiny cases (two threads, two operations)
// a brute-force enumeration of every schedule (no reduction) and the
// reduced search (sleep sets, sim/explore/dfs.h) reach the same set of
// distinct final states, under every policy.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <iostream>

#include "model/core.h"
#include "sim/explore/dfs.h"

using namespace futexsim::sim::explore;

namespace {

dfs_result search(const std::string& policy, const std::string& text, unsigned preemptions, bool reduction,
                  unsigned long gp_ends)
{
    run_config cfg;
    cfg.policy = policy;
    cfg.cpus = 2;
    cfg.max_steps = 400;
    cfg.max_gp_ends = gp_ends;
    cfg.check_sleepers = false;
    dfs_options o;
    o.max_preemptions = preemptions;
    o.reduction = reduction;
    o.collect_final_states = true;
    return explore_dfs(cfg, *parse_case(text), o);
}

// Two threads of at most two operations each: waits, wakes, wake_op,
// requeue, a timed wait, SET_SLOTS (a pivot: grace periods, the fold).
const std::vector<std::string> tiny_cases = {
    "C.K0:1/W0", "C.W0/K0:1", "C.O0:1/W1", "C.T0:3/K0:1", "C.R0:1:1/W0", "C.P2/K0:1", "C.G/M0.K0:1",
};

}  // namespace

TEST_CASE("the reduction reaches every final state brute force reaches (2 threads, 2 operations)",
          "[exhaustive][soundness]")
{
    for (const std::string policy : {"stock", "wait-for-new", "rwsem-gate"})
        for (const auto& text : tiny_cases) {
            // Brute force: no reduction; the preemption bound keeps it finite
            // in a test's time (the same bound for both).
            const auto brute = search(policy, text, 2, false, 1);
            const auto reduced = search(policy, text, 2, true, 1);
            INFO(policy << " " << text);
            REQUIRE(brute.complete);
            REQUIRE(reduced.complete);
            CHECK_FALSE(brute.failure);
            std::cout << fmt::format("soundness {} {}: brute force {} executions, reduced {} (+{} pruned), {} "
                                     "final states each",
                                     policy, text, brute.executions, reduced.executions, reduced.pruned,
                                     brute.final_states.size())
                      << std::endl;
            CHECK(reduced.final_states == brute.final_states);
            if (reduced.final_states != brute.final_states)
                for (const auto& s : brute.final_states)
                    if (!reduced.final_states.count(s))
                        std::cout << "  missed by the reduction: " << s << std::endl;
            CHECK(reduced.executions < brute.executions);
        }
}

