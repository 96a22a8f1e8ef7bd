// What a workload reports back while it runs: operations per interval of
// the process's clock (the throughput bins). Each thread counts into its
// own shard (on the simulator, fibers share the one OS thread and so one
// shard), so that on real threads counting moves no cache line between
// CPUs; totals are summed when asked.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "run/bin_cursor.h"
#include "run/workloads/workload_process.h"

namespace futexsim {

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
        const std::size_t bin = s.cursor.find(now, interval_ns_);
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
        bin_cursor cursor;  // the owning thread's alone, as the writes
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

}  // namespace futexsim
