// A workload registered from the test build, not the production library:
// one file and one register_workload() call is all it takes for the
// simulator to run it and for the command line to take its flag.
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "run/workloads/registry.h"
#include "sim/timed/run.h"
#include "tests/run/parse_workload_flags.h"
#include "tests/run/small_xeon_run.h"

using namespace futexsim;

namespace {

// Each thread issues --wakes FUTEX_WAKEs on one word nobody waits on, then
// exits: a fixed amount of work, so the count of operations is known.
workload_def toy_workload()
{
    workload_def w;
    w.name = "toy-wakers";
    w.description = "test only: --wakes FUTEX_WAKEs per thread, then exit";
    w.flags = {whole_flag("wakes", 100, 1, 1'000'000, "toy-wakers: FUTEX_WAKEs per thread")};
    w.main = [](workload_context& ctx) {
        const std::uint64_t wakes = ctx.whole_param("wakes");
        const std::uint64_t word = ctx.proc.alloc_futex_word();
        for (unsigned i = 0; i < ctx.opt.threads; i++)
            ctx.proc.spawn_thread(fmt::format("toy/{}", i), ctx.cpus, [&ctx, word, wakes] {
                for (std::uint64_t k = 0; k < wakes && !ctx.stopping; k++) {
                    ctx.proc.sys_futex_wake(word, 1);
                    ctx.ops.count();
                    ctx.proc.user_work(2);
                }
                thread_exit(ctx);
            });
    };
    return w;
}

// Registered once per test process, whichever test case runs first.
void register_toy()
{
    static const bool registered = [] {
        register_workload(toy_workload());
        return true;
    }();
    (void)registered;
}

run_options toy_run()
{
    return test::small_xeon_run("toy-wakers", 0.01);
}

}  // namespace

TEST_CASE("a workload registered by a test runs on the simulator with its own flag", "[workload]")
{
    register_toy();
    CHECK(workloads().back().name == "toy-wakers");
    CHECK(find_workload("toy-wakers").find_flag("wakes") != nullptr);

    const run_result by_default = sim::simulate(toy_run());
    CHECK(by_default.workload == "toy-wakers");
    CHECK(by_default.ops == 4 * 100);

    run_options o = toy_run();
    o.params.set("wakes", "25");
    const run_result r = sim::simulate(o);
    CHECK(r.ops == 4 * 25);
    CHECK(sim::simulate(o).trace_hash == r.trace_hash);  // as deterministic as a built-in one

    CHECK_THROWS_WITH(register_workload(toy_workload()), Catch::Contains("already registered"));
}

TEST_CASE("the command line takes a registered workload's flag and refuses it for another", "[workload]")
{
    register_toy();
    const auto parse = test::parse_workload_flags;
    const run_options o = parse({"--wakes", "7"}, "toy-wakers");
    REQUIRE(o.params.find("wakes"));
    CHECK(*o.params.find("wakes") == "7");
    CHECK_FALSE(parse({}, "toy-wakers").params.given("wakes"));  // the default, 100, is the workload's
    CHECK_THROWS_WITH(parse({"--wakes", "7"}, "mutex"), "--wakes does not apply to workload 'mutex'");
    CHECK_THROWS_AS(parse({"--wakes", "0"}, "toy-wakers"), CLI::ValidationError);
    // The built-in workloads' flags are there too, built the same way.
    CHECK(*parse({"--locks", "3"}, "mutex").params.find("locks") == "3");
    CHECK_THROWS_WITH(parse({"--mix", "50/40/5"}, "mixed-wait"), Catch::Contains("they add up to 95"));
}
