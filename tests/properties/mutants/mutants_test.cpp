// The mutation check: each deliberately broken variant of the model must be
// caught by the properties within the default budget. Built only with the
// mutation points on (-DFUTEXSIM_MUTATIONS=1). Each test prints the shrunk
// counterexample and its size (docs/testing.md records them) and the
// command that replays it with the test-only `futexsim-mutants`.
#include <catch2/catch.hpp>

#include <iostream>

#include "tests/properties/property_support.h"

using namespace futexsim;
using namespace futexsim::props;

namespace {

const std::string replay_program = "build/tests/futexsim-mutants";

rc::Gen<explored> gen_mutant_safety(std::string policy, std::string mutation)
{
    return rc::gen::map(rc::gen::tuple(gen_case(2, 16, gen_ops(6)), rc::gen::inRange(1u, 9u),
                                       gen_strategy(all_strategies())),
                        [policy, mutation](auto t) {
                            explored e;
                            e.c = std::get<0>(t);
                            e.cfg.policy = policy;
                            e.cfg.mutation = mutation;
                            e.cfg.cpus = std::get<1>(t);
                            e.cfg.strategy = std::get<2>(t);
                            e.cfg.max_steps = 3000;
                            e.cfg.strategy.pct_steps = e.cfg.max_steps;
                            e.cfg.check_sleepers = false;  // the known finding is no mutant's doing
                            return e;
                        });
}

// Continuous load with waits in it: what a policy that gates wake but not
// wait cannot drain.
rc::Gen<explored> gen_mutant_load(std::string policy)
{
    using namespace rc;
    auto load = gen::mapcat(gen::inRange(1, 4), [](int n) {
        return gen::container<std::vector<case_op>>(
            static_cast<std::size_t>(n),
            gen::weightedOneOf<case_op>({{2, gen::map(gen_word(), [](unsigned a) { return case_op{'K', a, 0, 1}; })},
                                     {3, gen::map(gen_word(), [](unsigned a) { return case_op{'M', a, 0, 0}; })}}));
    });
    return gen_continuous(policy, load, {sim::strategy_kind::random}, liveness_bound_gps);
}

void expect_caught(const std::string& name, const check_outcome& out)
{
    CHECK_FALSE(out.passed);
    REQUIRE(out.shrunk.has_value());
    const auto& e = *out.shrunk;
    const auto replay = sim::explore::explore_case(e.cfg, e.c);
    std::cout << "mutant " << name << ": caught; shrunk to " << sim::explore::case_size(e.c) << " operations in "
              << e.c.threads.size() << " threads, schedule prefix of " << e.cfg.strategy.schedule.size()
              << " choices, " << replay.steps << " steps\n    violation: "
              << (replay.violation ? *replay.violation : std::string("(none on replay!)"))
              << "\n    replay: " << sim::explore::replay_command(e.cfg, e.c, replay_program) << std::endl;
    CHECK(replay.violation.has_value());  // the printed command reproduces it
}

}  // namespace

TEST_CASE("mutant eager-install (installs without waiting for the count to drain) is caught", "[property][mutant]")
{
    const auto out = check_property("mutant eager-install", 100, 41, [] {
        explore_or_fail(*gen_mutant_safety("mutant-eager-install", ""), replay_program);
    });
    expect_caught("eager-install", out);
}

TEST_CASE("mutant forget-bias (no LONG_MAX bias on the atomic) is caught", "[property][mutant]")
{
    const auto out = check_property("mutant forget-bias", 100, 42, [] {
        explore_or_fail(*gen_mutant_safety("stock", "forget-bias"), replay_program);
    });
    expect_caught("forget-bias", out);
}

TEST_CASE("mutant no-fold-grace-period (folds without the grace period) is caught", "[property][mutant]")
{
    const auto out = check_property("mutant no-fold-grace-period", 100, 43, [] {
        explore_or_fail(*gen_mutant_safety("stock", "no-fold-grace-period"), replay_program);
    });
    expect_caught("no-fold-grace-period", out);
}

TEST_CASE("mutant ungated-wait (wait-for-new gating wake but not wait) is caught", "[property][mutant]")
{
    const auto out = check_property("mutant ungated-wait", 100, 44, [] {
        explore_or_fail(*gen_mutant_load("mutant-ungated-wait"), replay_program);
    });
    expect_caught("ungated-wait", out);
}
