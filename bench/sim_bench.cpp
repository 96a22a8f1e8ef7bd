// The simulator's speed on the reference runs of issue 14 (reproducer 1 on
// the Xeon preset, CPUs 0-95): 96 threads auto-scaled (seed 2: latched after
// the first milliseconds; the run is refused if it does not end latched),
// 96 threads presized (healthy, every operation simulated), 16 threads
// auto-scaled (healthy), all exact (--exact); and 96
// threads presized for 4 virtual seconds fast-forwarded, as `futexsim run`
// runs it by default. Each iteration is one run;
// the counters give what a user waits for:
//   wall_per_vsec       wall seconds per simulated second
//   cpu_per_vsec        the same in CPU seconds of this process (steadier
//                       than wall time on a loaded machine)
//   cpu_ns_per_op       CPU nanoseconds per futex operation the run
//                       reports (a fast-forwarded run: extrapolated ones too)
//   hits_per_op         accesses to shared words served locally, per
//                       operation (each one charged its cost; likewise)
//   line_services/s     queued cache-line accesses served per wall second
//   events/s            engine events per wall second
//   peak_rss_MiB        the process's peak resident set so far
// `repro2_latched_192` is reproducer 2 (producer-consumer, v7.2) with 192
// threads on CPUs 0-191, latched (refused likewise). The latched figure
// issue 30 states its targets for is the difference of a case's two
// lengths: (CPU s of the long run - CPU s of the short) / (their lengths'
// difference), which leaves the start-up out.
// Run by hand: build/futexsim_sim_bench [--benchmark_filter=latched]. The
// run lengths are arguments (virtual milliseconds); longer runs dilute the
// ramp-up at the start: the latched run goes 0.5 s (quick) and 4 s (the
// length issue 14's target is stated for, about 10 s of wall time).
//
// Two more put a healthy operation's cost in proportion: `presized_1`, the
// presized run with one thread (nothing contended, no task switches but at
// ticks), and `model_alone`, the model's own code for the same operation
// (futex_wake() with nobody waiting, the private hash presized and
// per-CPU) on the step environment, whose shared words are plain memory
// and which keeps no time: the floor under any simulation that runs every
// operation's code (docs/simulator.md, "Speed").
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <ctime>

#include "machine/machine.h"
#include "run/run_options.h"
#include "sim/step/step_process.h"
#include "sim/timed/run.h"

namespace {

using namespace futexsim;

// CPU seconds this process has used since `start` (std::clock()).
double cpu_seconds_since(std::clock_t start)
{
    return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

double peak_rss_mib()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// One reference run: what differs between them.
struct reference {
    unsigned threads = 96;
    bool presized = false;
    bool fast_forward = false;
    const char* workload = "wake-nowaiters";
    const char* cpus = "0-95";
    const char* kernel = nullptr;  // the default version when none
    std::uint64_t seed = 1;
    // The run is the latched case: it must end latched, or it measures
    // something else (seed 1 of reproducer 1 drains after half a virtual
    // second since the bucket lock's slow path is counted, and the bench
    // went on printing a healthy run's figures under the latched name).
    bool latched = false;
};

void reference_run(benchmark::State& state, const reference& ref)
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.workload = ref.workload;
    o.threads = ref.threads;
    o.seed = ref.seed;
    if (ref.kernel)
        o.kernel = *model::parse_kernel_version(ref.kernel);
    o.seconds = static_cast<double>(state.range(0)) / 1e3;
    o.cpus = parse_cpu_list(ref.cpus, o.mach.num_cpus());
    if (ref.presized)
        o.presize = 512;
    sim::sim_counters c;
    sim::sim_options so;
    so.counters = &c;
    so.fast_forward = ref.fast_forward;
    std::uint64_t services = 0, events = 0, hits = 0, ops = 0;
    double wall = 0;
    const std::clock_t cpu_start = std::clock();
    for (auto _ : state) {
        const run_result r = sim::simulate(o, so);
        if (ref.latched && r.outcome != "latched") {
            state.SkipWithError(("the latched reference run ended " + r.outcome +
                                 ": pick a seed that stays latched")
                                    .c_str());
            return;
        }
        wall += r.wall_seconds;
        services += c.line_services;
        events += c.events;
        hits += c.line_hits;
        ops += r.ops;
    }
    const auto runs = static_cast<double>(state.iterations());
    const double cpu = cpu_seconds_since(cpu_start);
    state.counters["wall_per_vsec"] = wall / runs / o.seconds;
    state.counters["cpu_per_vsec"] = cpu / runs / o.seconds;
    state.counters["cpu_ns_per_op"] = cpu * 1e9 / static_cast<double>(ops);
    state.counters["hits_per_op"] = static_cast<double>(hits) / static_cast<double>(ops);
    state.counters["line_services/s"] = static_cast<double>(services) / wall;
    state.counters["events/s"] = static_cast<double>(events) / wall;
    state.counters["peak_rss_MiB"] = peak_rss_mib();
}

// Seed 2, the README's example: latched from about 10 ms on, through 4 s.
void latched_96(benchmark::State& s) { reference_run(s, {.seed = 2, .latched = true}); }
void presized_96(benchmark::State& s) { reference_run(s, {.presized = true}); }
void auto_16(benchmark::State& s) { reference_run(s, {.threads = 16}); }
void presized_96_fast_forward(benchmark::State& s)
{
    reference_run(s, {.presized = true, .fast_forward = true});
}
void presized_1(benchmark::State& s) { reference_run(s, {.threads = 1, .presized = true}); }
// Reproducer 2 as the real machine's recovery study ran it (v7.2): 192
// threads on every CPU, latched within its first tens of milliseconds.
void repro2_latched_192(benchmark::State& s)
{
    reference_run(s, {.threads = 192,
                      .workload = "producer-consumer",
                      .cpus = "0-191",
                      .kernel = "v7.2",
                      .latched = true});
}

void model_alone(benchmark::State& state)
{
    sim::step_process p(96);
    p.env.set_cpu(0);
    if (p.set_slots(512) != 0) {
        state.SkipWithError("prctl(PR_FUTEX_HASH_SET_SLOTS, 512) failed");
        return;
    }
    while (p.env.pending_callbacks() > 0)
        p.env.end_grace_period();
    if (p.current() == nullptr || p.env.atomic_read(p.current()->state) != model::FR_PERCPU) {
        state.SkipWithError("the presized hash is not installed and per-CPU");
        return;
    }
    const std::uint64_t uaddr = 0x7f0000001000ull;  // a futex word in the step environment's memory
    p.env.user_memory[uaddr] = 0;
    const long ops = state.range(0);
    const std::clock_t cpu_start = std::clock();
    for (auto _ : state) {
        for (long i = 0; i < ops; ++i) {
            benchmark::DoNotOptimize(p.futex_wake(uaddr, 1));
            if ((i & 1023) == 0)
                p.env.clear_trace();  // the step environment logs every tracepoint
        }
    }
    state.counters["cpu_ns_per_op"] = cpu_seconds_since(cpu_start) * 1e9 /
                                      static_cast<double>(ops) /
                                      static_cast<double>(state.iterations());
}

// 4 virtual seconds: issue 14's first target (at most 4 s of wall time).
BENCHMARK(latched_96)->Arg(500)->Arg(4000)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(presized_96)->Arg(20)->Unit(benchmark::kSecond)->Iterations(1);
// Issue 30's second target, once latched: the difference of the two lengths.
BENCHMARK(repro2_latched_192)->Arg(500)->Arg(2000)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(auto_16)->Arg(50)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(presized_96_fast_forward)->Arg(4000)->Unit(benchmark::kSecond)->Iterations(1);
// A healthy operation's cost: one thread for 2 virtual seconds (about 20 M
// operations), and the model's code alone for as many.
BENCHMARK(presized_1)->Arg(2000)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(model_alone)->Arg(20'000'000)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
