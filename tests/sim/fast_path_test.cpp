// The engine's fast paths (engine_config::fast_paths: a task's request run
// at once when it is the loop's next event, a resumption that is the next
// event taken without leaving the task's fiber, the loop run on a stopping
// task's stack and a switch straight to the next task) claim to change
// nothing:
// the same JSON, byte for byte, and the same event-trace hash as the
// straightforward path, over workloads, policies, machines and strategies.
#include <catch2/catch.hpp>

#include "run/report.h"
#include "sim/timed/run.h"
#include "tests/sim/report_compare.h"

using namespace futexsim;
using namespace futexsim::sim;
using futexsim::test::without_wall;

namespace {

struct variant {
    const char* name;
    const char* preset;
    const char* workload;
    const char* policy;
    unsigned threads;
    double seconds;
    strategy_kind strategy = strategy_kind::fifo;
};

void check_identical(const variant& v)
{
    run_options o;
    o.mach = load_machine_preset(v.preset);
    o.workload = v.workload;
    o.policy = v.policy;
    o.threads = v.threads;
    o.seconds = v.seconds;
    o.cpus = parse_cpu_list("0-95", o.mach.num_cpus());
    sim_options fast;
    fast.strategy.kind = v.strategy;
    fast.fast_forward = false;  // every event of the run, both ways
    sim_options slow = fast;
    slow.fast_paths = false;
    for (std::uint64_t seed : {1, 2}) {
        o.seed = seed;
        const run_result a = simulate(o, fast);
        const run_result b = simulate(o, slow);
        INFO(v.name << " seed " << seed);
        CHECK(without_wall(json_line(a)) == without_wall(json_line(b)));
        CHECK(a.trace_hash == b.trace_hash);
        CHECK(a.events == b.events);
    }
}

}  // namespace

TEST_CASE("fast paths: byte-identical to the straightforward path", "[fast-path]")
{
    const variant variants[] = {
        // latched within the run: the contended atomic, the fast paths' case
        {"wake-nowaiters latched, xeon", "xeon-6975p-snc3", "wake-nowaiters", "stock", 64, 0.03},
        {"producer-consumer, wait-for-new", "xeon-6975p-snc3", "producer-consumer", "wait-for-new", 48, 0.02},
        {"mixed-wait, rwsem-gate", "xeon-6975p-snc3", "mixed-wait", "rwsem-gate", 24, 0.02},
        {"mutex, epyc", "epyc-9r45", "mutex", "stock", 32, 0.02},
        {"wake-nowaiters, graviton (far atomics)", "graviton4", "wake-nowaiters", "stock", 48, 0.02},
        {"wake-nowaiters, random strategy", "xeon-6975p-snc3", "wake-nowaiters", "stock", 130, 0.01,
         strategy_kind::random},
    };
    for (const variant& v : variants)
        check_identical(v);
}
