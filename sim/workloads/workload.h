// Workloads: what the simulated process's threads do. Each workload is one
// file that defines a `workload_def` and one line in registry.cpp.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <functional>
#include <string>
#include <vector>

#include "model/futex.h"
#include "sim/run.h"
#include "sim/workloads/workload_process.h"

namespace futexsim::sim {

// Nanoseconds of the process's clock (virtual on the simulator).
using vtime = std::int64_t;

// What a workload reports back while it runs: operations per interval of
// the process's clock. Each thread counts into its own shard (on the
// simulator, fibers share the one OS thread and so one shard), so that on
// real threads counting moves no cache line between CPUs; totals are summed
// when asked.
class op_counter {
public:
    // What the run counts: on the simulator every operation (the measured
    // run ends at `seconds` exactly, when the figures are read); on a real
    // backend (`window_only`) only those before `seconds` on the process's
    // clock, since its threads keep going until the watchdog has read the
    // figures, later by however long the machine took to get to it: the
    // operations are then exactly those in the bins.
    op_counter(workload_process& p, double interval_ms, double seconds, bool window_only = false);
    void count() // one completed operation, at the calling thread's time
    {
        shard& s = my_shard();
        const std::int64_t now = proc_.now_ns();
        if (window_only_ && now >= window_ns_)
            return;
        const auto bin = static_cast<std::size_t>(now / interval_ns_);
        if (bin < s.bins.size())
            bump(s.bins[bin]);
        bump(s.total);
    }
    std::uint64_t total() const;
    std::vector<std::uint64_t> bins() const;
    bool window_only() const { return window_only_; }

private:
    struct alignas(64) shard {
        explicit shard(std::size_t n) : bins(n) {}
        std::vector<std::atomic<std::uint64_t>> bins;
        std::atomic<std::uint64_t> total{0};
    };
    // Only the owning thread writes a shard: a relaxed load and store, no
    // locked instruction; readers see a recent value.
    static void bump(std::atomic<std::uint64_t>& c) { c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
    shard& my_shard();

    workload_process& proc_;
    std::int64_t interval_ns_;
    bool window_only_;
    std::int64_t window_ns_;
    std::size_t nbins_;
    std::uint64_t id_;  // tells this counter's shards from an earlier counter's
    mutable std::mutex mu_;
    std::deque<shard> shards_;
};

struct workload_context {
    workload_context(workload_process& p, const run_options& o, op_counter& c, std::vector<unsigned> allowed)
        : proc(p), opt(o), ops(c), cpus(std::move(allowed))
    {
    }
    workload_process& proc;
    const run_options& opt;
    op_counter& ops;
    std::vector<unsigned> cpus;           // where threads may run
    std::atomic<bool> stopping = false;   // set at the end of the measured run: threads exit
    std::atomic<std::int64_t> work_done_at = -1;  // when a fixed amount of work (--ops) was finished
    // Phases the workload announces (name, start, slots when it started).
    struct phase_mark {
        std::string name;
        std::int64_t start;
        int slots;
    };
    std::vector<phase_mark> phases;
    void mark_phase(std::string name)
    {
        phases.push_back({std::move(name), proc.now_ns(),
                          proc.sys_prctl_futex_hash(model::PR_FUTEX_HASH_GET_SLOTS, 0)});
    }
};

// What a worker does when it leaves: the kernel's exit path wakes the
// futex of CLONE_CHILD_CLEARTID (glibc's pthread_join() waits on it), one
// more futex operation, which is what lets a parked pivot finish once the
// load stops.
void thread_exit(workload_context& ctx);

struct workload_def {
    std::string name;
    std::string description;
    // The process's main thread. Returns after creating the workers.
    std::function<void(workload_context&)> main;
    // Workload-specific command-line flags it accepts (others are refused).
    std::vector<std::string> flags;
};

const std::vector<workload_def>& workloads();
const workload_def& find_workload(const std::string& name);  // throws std::invalid_argument

// `count` futex words, each on its own line.
std::vector<std::uint64_t> alloc_futex_words(workload_context& ctx, unsigned count);

// Threads from..to-1 of a FUTEX_WAKE_PRIVATE loop (reproducer 1): thread i
// wakes words[i % words.size()], which nobody waits on, until the run stops.
// `gap` is the pause before each creation (--ramp-ms).
void spawn_wake_loops(workload_context& ctx, const std::vector<std::uint64_t>& words, unsigned from,
                      unsigned to, std::int64_t gap);

// Spread `count` thread creations over `ramp_ms`: the gap before the i-th.
std::int64_t ramp_gap(const run_options& opt, unsigned count);

// The throughput fields of `r` (ops, mops, per-interval bins, phases,
// work_ms) from what the workload counted over a run of `seconds`;
// `slots_now` closes the last phase. Every backend reports the same way.
void fill_throughput(run_result& r, const workload_context& ctx, const op_counter& ops, double seconds,
                     int slots_now);

workload_def wake_nowaiters_workload();
workload_def producer_consumer_workload();
workload_def hash_bench_workload();
workload_def mutex_workload();
workload_def mixed_wait_workload();
workload_def pool_growth_workload();

}  // namespace futexsim::sim
