// Safety of every registered pivot policy under every schedule strategy:
// small machines (1-8 CPUs), 2-16 threads, generated sequences of wait
// (with and without timeout, matching or not), wake, wake_op, requeue,
// prctl and thread creation. The invariants (sim/explore/invariants.h, the
// wake and SET_SLOTS checks in sim/explore/explore_run.cpp) are checked
// after every step; a failure prints the `futexsim replay` command of the
// shrunk case.
#include <catch2/catch.hpp>

#include "model/core.h"
#include "tests/properties/property_support.h"

using namespace futexsim;
using namespace futexsim::props;

namespace {

rc::Gen<explored> gen_safety(std::string policy)
{
    return rc::gen::map(rc::gen::tuple(gen_case(2, 16, gen_ops(4)), rc::gen::inRange(1u, 9u),
                                       gen_strategy(all_strategies())),
                        [policy](auto t) {
                            explored e;
                            e.c = std::get<0>(t);
                            e.cfg.policy = policy;
                            e.cfg.cpus = std::get<1>(t);
                            e.cfg.strategy = std::get<2>(t);
                            e.cfg.max_steps = 3000;
                            e.cfg.strategy.pct_steps = e.cfg.max_steps;
                            return e;
                        });
}

void check_safety(const std::string& policy, std::uint64_t seed)
{
    const auto out = check_property("safety invariants after every step: " + policy, 60, seed, [policy] {
        explore_or_fail(*gen_safety(policy));
    });
    INFO(out.report);
    CHECK(out.passed);
}

}  // namespace

TEST_CASE("stock: the safety invariants hold after every step under every strategy", "[property]")
{
    check_safety("stock", 11);
}

TEST_CASE("wait-for-new: the safety invariants hold after every step under every strategy", "[property]")
{
    check_safety("wait-for-new", 12);
}

TEST_CASE("rwsem-gate: the safety invariants hold after every step under every strategy", "[property]")
{
    check_safety("rwsem-gate", 13);
}

TEST_CASE("every registered policy is covered by a safety property", "[property]")
{
    // A new policy in model/policies/registry.h needs its TEST_CASE above.
    CHECK(model::registered_policies::size == 3);
}
