#include "run/op_counter.h"

namespace futexsim {

namespace {
std::atomic<std::uint64_t> next_counter_id{1};
}

// Bins up to the end of the run (run_bins): a run that is not a whole
// number of bins long ends with a shorter one, so that every operation
// before its end lands in one; a window-only counter has bins up to the end
// of its window, the same way on the nanosecond clock.
op_counter::op_counter(workload_process& p, double interval_ms, double seconds, bool window_only)
    : proc_(p), interval_ns_(static_cast<std::int64_t>(interval_ms * 1e6)),
      window_only_(window_only), window_ns_(static_cast<std::int64_t>(seconds * 1e9)),
      nbins_(window_only ? static_cast<std::size_t>((window_ns_ + interval_ns_ - 1) / interval_ns_)
                         : run_bins(seconds, interval_ms)),
      id_(next_counter_id++)
{
}

op_counter::shard& op_counter::my_shard()
{
    struct cached {
        std::uint64_t id = 0;
        shard* s = nullptr;
    };
    thread_local cached mine;
    if (mine.id != id_) {
        std::lock_guard lock(mu_);
        mine = {id_, &shards_.emplace_back(nbins_)};
    }
    return *mine.s;
}

std::uint64_t op_counter::total() const
{
    std::lock_guard lock(mu_);
    std::uint64_t t = 0;
    for (const auto& s : shards_)
        t += s.total.load(std::memory_order_relaxed);
    return t;
}

std::vector<std::uint64_t> op_counter::bins() const
{
    std::lock_guard lock(mu_);
    std::vector<std::uint64_t> sum(nbins_, 0);
    for (const auto& s : shards_)
        for (std::size_t i = 0; i < nbins_; i++)
            sum[i] += s.bins[i].load(std::memory_order_relaxed);
    return sum;
}

}  // namespace futexsim
