// Schedule strategies on the timed engine (sim/schedule.h): each is a pure
// function of its seed, and they do change which task a CPU runs next.
#include <catch2/catch.hpp>

#include "sim/schedule.h"
#include "sim/timed/run.h"

using namespace futexsim;
using namespace futexsim::sim;

namespace {

// More threads than CPUs, so that run queues form and a strategy has choices.
run_result crowded_run(strategy_kind kind, std::vector<unsigned> schedule = {})
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.threads = 8;
    o.seconds = 0.01;
    o.cpus = parse_cpu_list("0-1", o.mach.num_cpus());
    o.seed = 3;
    sim_options so;
    so.strategy.kind = kind;
    so.strategy.schedule = std::move(schedule);
    return simulate(o, so);
}

}  // namespace

TEST_CASE("every strategy gives the same run for the same seed", "[strategy]")
{
    for (strategy_kind k : {strategy_kind::fifo, strategy_kind::random, strategy_kind::pct, strategy_kind::replay}) {
        INFO(strategy_name(k));
        CHECK(crowded_run(k).trace_hash == crowded_run(k).trace_hash);
    }
}

TEST_CASE("random and pct schedule differently from the run queue's order", "[strategy]")
{
    const auto fifo = crowded_run(strategy_kind::fifo).trace_hash;
    CHECK(crowded_run(strategy_kind::random).trace_hash != fifo);
    CHECK(crowded_run(strategy_kind::pct).trace_hash != fifo);
    // replay with no recorded choices is the queue's order
    CHECK(crowded_run(strategy_kind::replay).trace_hash == fifo);
}

TEST_CASE("schedule strategy: the prefix is played first, then the strategy's own rule", "[strategy]")
{
    strategy_options o;
    o.kind = strategy_kind::replay;
    o.schedule = {2, 5, 1};
    const auto s = make_strategy(o);
    const std::vector<std::uint32_t> three{10, 11, 12};
    CHECK(s->pick(three) == 2);
    CHECK(s->pick(three) == 2);  // 5 mod 3
    CHECK(s->pick(three) == 1);
    CHECK(s->pick(three) == 0);  // prefix exhausted: the first candidate
    CHECK(s->pick({7}) == 0);    // a single candidate is no choice
    CHECK(s->recorded() == std::vector<unsigned>{2, 2, 1, 0});
    CHECK(parse_schedule("2,2,1,0") == s->recorded());
    CHECK(format_schedule(s->recorded()) == "2,2,1,0");
    CHECK_FALSE(parse_schedule("1,,2").has_value());
}

TEST_CASE("pct: the highest priority runs until a change point demotes it", "[strategy]")
{
    strategy_options o;
    o.kind = strategy_kind::pct;
    o.pct_depth = 1;  // no change points: one task keeps running while it can
    const auto s = make_strategy(o);
    const std::vector<std::uint32_t> tasks{1, 2, 3};
    const std::size_t first = s->pick(tasks);
    for (int i = 0; i < 20; i++)
        CHECK(s->pick(tasks) == first);
}
