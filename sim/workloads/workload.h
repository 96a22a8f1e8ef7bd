// Workloads: what the simulated process's threads do. Each workload is one
// file that defines a `workload_def` and one line in registry.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/process.h"
#include "sim/run.h"

namespace futexsim::sim {

// What a workload reports back while it runs.
class op_counter {
public:
    op_counter(engine& e, double interval_ms, double seconds);
    void count() // one completed operation, at the calling task's time
    {
        const auto bin = static_cast<std::size_t>(eng_.now() / interval_ns_);
        if (bin < bins_.size())
            ++bins_[bin];
        ++total_;
    }
    std::uint64_t total() const { return total_; }
    const std::vector<std::uint64_t>& bins() const { return bins_; }

private:
    engine& eng_;
    vtime interval_ns_;
    std::vector<std::uint64_t> bins_;
    std::uint64_t total_ = 0;
};

struct workload_context {
    sim_process& proc;
    const run_options& opt;
    op_counter& ops;
    std::vector<unsigned> cpus;  // where threads may run
    bool stopping = false;       // set at the end of the measured run: threads exit
    vtime work_done_at = -1;     // when a fixed amount of work (--ops) was finished
    // Phases the workload announces (name, start, slots when it started).
    struct phase_mark {
        std::string name;
        vtime start;
        int slots;
    };
    std::vector<phase_mark> phases;
    void mark_phase(std::string name)
    {
        phases.push_back({std::move(name), proc.eng().now(),
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
                      unsigned to, vtime gap);

// Spread `count` thread creations over `ramp_ms`: the gap before the i-th.
vtime ramp_gap(const run_options& opt, unsigned count);

workload_def wake_nowaiters_workload();
workload_def producer_consumer_workload();
workload_def hash_bench_workload();
workload_def mutex_workload();
workload_def mixed_wait_workload();
workload_def pool_growth_workload();

}  // namespace futexsim::sim
