// Workloads: what the process's threads do, on whichever backend runs them
// (they program against workload_process). Each workload is one file that
// defines a `workload_def` factory, and one line in registry.cpp
// (docs/extending.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/futex.h"
#include "run/op_counter.h"
#include "run/run_options.h"
#include "run/vtime.h"
#include "run/workloads/workload_params.h"
#include "run/workloads/workload_process.h"

namespace futexsim {

struct workload_def;

struct workload_context {
    workload_context(workload_process& p, const run_options& o, op_counter& c, std::vector<unsigned> allowed);
    workload_process& proc;
    const run_options& opt;
    op_counter& ops;
    std::vector<unsigned> cpus;           // where threads may run
    std::atomic<bool> stopping = false;   // set at the end of the measured run: threads exit
    std::atomic<std::int64_t> work_done_at = -1;  // when a fixed amount of work (--ops) was finished
    // That fixed amount, set by the workload's main; 0: it runs for --seconds.
    std::uint64_t work_ops = 0;
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
    // The value of one of the workload's own flags (workload_def::flags):
    // the one given in opt.params, else the flag's default. Throws
    // std::invalid_argument for a flag the workload does not declare, or a
    // whole number that is not one.
    const std::string& param(const std::string& name) const;
    std::uint64_t whole_param(const std::string& name) const;

private:
    const workload_def& def_;
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
    // True if, once main() has returned, no thread creates a thread or
    // calls prctl() and the threads keep doing the same thing until the
    // run ends (no fixed amount of work, no phases): the simulator may then
    // fast-forward a run whose hash has settled (sim/timed/fast_forward.h).
    bool stationary_after_main = false;
    // The flags only this workload takes (others are refused).
    std::vector<workload_flag> flags;
    // Options it cannot take together (say a flag against --threads):
    // throws std::invalid_argument, one line. Empty: any.
    std::function<void(const run_options&)> check;

    const workload_flag* find_flag(const std::string& flag_name) const;
};

// `count` futex words, each on its own line.
std::vector<std::uint64_t> alloc_futex_words(workload_context& ctx, unsigned count);

// What a wake loop spends in user mode around each FUTEX_WAKE (the call and
// the loop): `futexsim calibrate` and `probe` subtract it from a measured
// system call to get the model's entry + exit.
inline constexpr std::int64_t wake_loop_user_ns = 2;

// Threads from..to-1 of a FUTEX_WAKE_PRIVATE loop (reproducer 1): thread i
// wakes words[i % words.size()], which nobody waits on, until the run stops.
// `gap` is the pause before each creation (--ramp-ms).
void spawn_wake_loops(workload_context& ctx, const std::vector<std::uint64_t>& words, unsigned from,
                      unsigned to, std::int64_t gap);

// Spread `count` thread creations over `ramp_ms`: the gap before the i-th.
std::int64_t ramp_gap(const run_options& opt, unsigned count);

}  // namespace futexsim
