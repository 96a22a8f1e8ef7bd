// What the threads backend's hash reference costs, against two baselines
// measured in the same run: a plain per-thread counter (what FR_PERCPU is
// meant to approach) and one shared atomic (what FR_ATOMIC degrades to).
// Also each pivot policy's overhead on the mutex workload. After Google
// Benchmark's own table, a second one gives each result as a ratio to the
// baselines at the same thread count.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <atomic>
#include <climits>
#include <map>
#include <memory>
#include <string>

#include "model/core.h"
#include "real/run_real.h"
#include "real/threads_process.h"

namespace {

using namespace futexsim;

// --- baselines ----------------------------------------------------------
struct alignas(64) padded_counter {
    std::atomic<std::uint64_t> v{0};
};
padded_counter per_thread[256];
padded_counter shared;

void plain_per_thread_counter(benchmark::State& state)
{
    auto& mine = per_thread[state.thread_index() % 256].v;
    for (auto _ : state) {
        // The owner is the only writer: a load and a store, no lock prefix.
        mine.store(mine.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        mine.store(mine.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    }
}

void plain_shared_atomic(benchmark::State& state)
{
    for (auto _ : state) {
        shared.v.fetch_add(1);
        shared.v.fetch_sub(1);
    }
}

// --- the model's get/put pair on threads_env -------------------------------
// One process per benchmark run, made before its threads start (Setup) and
// freed after they have all finished (Teardown).
std::unique_ptr<real::threads_process> proc;

void set_up(bool atomic_mode)
{
    proc = std::make_unique<real::threads_process>(64);
    proc->sys_prctl_futex_hash(model::PR_FUTEX_HASH_SET_SLOTS, 16);  // install a private hash
    if (atomic_mode) {
        // The state a pivot leaves the hash in until the fold: FR_ATOMIC
        // with the bias, every get and put a locked RMW on mm->futex_atomic.
        auto& env = proc->env();
        auto* fph = env.atomic_read(proc->mm().futex_phash);
        env.atomic_set(proc->mm().futex_atomic, model::futex_ref_bias);
        env.smp_store_release(fph->state, model::FR_ATOMIC);
    }
}
void set_up_percpu(const benchmark::State&) { set_up(false); }
void set_up_atomic(const benchmark::State&) { set_up(true); }

void tear_down(const benchmark::State&)
{
    // Back to a state futex_hash_free() accepts, then free.
    auto& env = proc->env();
    auto* fph = env.atomic_read(proc->mm().futex_phash);
    env.atomic_set(proc->mm().futex_atomic, 0L);
    env.smp_store_release(fph->state, model::FR_PERCPU);
    proc.reset();
}

void ref_get_put(benchmark::State& state)
{
    auto* mm = &proc->mm();
    for (auto _ : state) {
        auto* const fph = model::futex_private_hash(mm);
        // The const overload: benchmark 1.7's read-write one ("+m,r") can
        // hand back a clobbered value under GCC with sanitizers (UBSan saw
        // a null fph here).
        benchmark::DoNotOptimize(fph);
        model::futex_private_hash_put(fph);
    }
}

void ref_get_put_percpu(benchmark::State& state) { ref_get_put(state); }
void ref_get_put_atomic(benchmark::State& state) { ref_get_put(state); }

// --- each policy on the mutex workload ---------------------------------------
void mutex_policy(benchmark::State& state, const char* policy)
{
    run_options o;
    o.workload = "mutex";
    o.policy = policy;
    o.threads = static_cast<unsigned>(state.range(0));
    constexpr std::int64_t work_ops = 20000;
    o.params.set("ops", std::to_string(work_ops));
    o.seconds = 5;
    for (auto _ : state) {
        const run_result r = real::run_real(o, real::backend::threads);
        state.SetIterationTime(r.work_ms / 1e3);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * work_ops);
}

// Keeps each benchmark's time per operation for the ratio table.
class ratio_reporter : public benchmark::ConsoleReporter {
public:
    std::map<std::string, double> ns_per_op;
    void ReportRuns(const std::vector<Run>& runs) override
    {
        for (const auto& r : runs) {
            const auto items = r.counters.find("items_per_second");
            ns_per_op[r.benchmark_name()] = items != r.counters.end() && items->second.value > 0
                                                ? 1e9 / items->second.value
                                                : r.GetAdjustedRealTime();
        }
        ConsoleReporter::ReportRuns(runs);
    }
};

}  // namespace

BENCHMARK(plain_per_thread_counter)->ThreadRange(1, 2)->UseRealTime();
BENCHMARK(plain_shared_atomic)->ThreadRange(1, 2)->UseRealTime();
BENCHMARK(ref_get_put_percpu)->ThreadRange(1, 2)->UseRealTime()->Setup(set_up_percpu)->Teardown(tear_down);
BENCHMARK(ref_get_put_atomic)->ThreadRange(1, 2)->UseRealTime()->Setup(set_up_atomic)->Teardown(tear_down);
BENCHMARK_CAPTURE(mutex_policy, stock, "stock")->Arg(4)->UseManualTime()->Iterations(3);
BENCHMARK_CAPTURE(mutex_policy, wait_for_new, "wait-for-new")->Arg(4)->UseManualTime()->Iterations(3);
BENCHMARK_CAPTURE(mutex_policy, rwsem_gate, "rwsem-gate")->Arg(4)->UseManualTime()->Iterations(3);

int main(int argc, char** argv)
{
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    ratio_reporter rep;
    benchmark::RunSpecifiedBenchmarks(&rep);

    // The ratio table: each benchmark against both baselines at its thread
    // count (a mutex run against the single-thread baselines: one pair per
    // lock/unlock).
    auto baseline = [&](const char* name, const std::string& threads) {
        auto it = rep.ns_per_op.find(fmt::format("{}/real_time/threads:{}", name, threads));
        return it == rep.ns_per_op.end() ? 0.0 : it->second;
    };
    fmt::print("\n{:<52} {:>10} {:>16} {:>16}\n", "benchmark", "ns/op", "x per-thread ctr", "x shared atomic");
    for (const auto& [name, ns] : rep.ns_per_op) {
        const auto at = name.find("threads:");
        const std::string threads = at == std::string::npos ? "1" : name.substr(at + 8);
        const double ctr = baseline("plain_per_thread_counter", threads);
        const double atom = baseline("plain_shared_atomic", threads);
        fmt::print("{:<52} {:>10.2f} {:>16.2f} {:>16.2f}\n", name, ns, ctr > 0 ? ns / ctr : 0.0,
                   atom > 0 ? ns / atom : 0.0);
    }
    benchmark::Shutdown();
    return 0;
}
