#include <fmt/format.h>

#include <atomic>
#include <stdexcept>

#include "sim/workloads/workload.h"

namespace futexsim::sim {

const std::vector<workload_def>& workloads()
{
    static const std::vector<workload_def> all = {
        wake_nowaiters_workload(),
        producer_consumer_workload(),
        hash_bench_workload(),
        mutex_workload(),
        mixed_wait_workload(),
        pool_growth_workload(),
    };
    return all;
}

const workload_def& find_workload(const std::string& name)
{
    std::string valid;
    for (const auto& w : workloads()) {
        if (w.name == name)
            return w;
        valid += (valid.empty() ? "" : ", ") + w.name;
    }
    throw std::invalid_argument(fmt::format("unknown workload '{}' (valid: {})", name, valid));
}

namespace {
std::atomic<std::uint64_t> next_counter_id{1};
}

// The simulator keeps its rounded bin count (its output is fixed by it);
// a window-only counter has bins up to the end of the window, the last one
// partial, so that every operation it counts lands in one.
op_counter::op_counter(workload_process& p, double interval_ms, double seconds, bool window_only)
    : proc_(p), interval_ns_(static_cast<std::int64_t>(interval_ms * 1e6)), window_only_(window_only),
      window_ns_(static_cast<std::int64_t>(seconds * 1e9)),
      nbins_(window_only ? static_cast<std::size_t>((window_ns_ + interval_ns_ - 1) / interval_ns_)
                         : static_cast<std::size_t>(seconds * 1e3 / interval_ms + 0.5)),
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

void thread_exit(workload_context& ctx)
{
    ctx.proc.thread_exit();
}

std::vector<std::uint64_t> alloc_futex_words(workload_context& ctx, unsigned count)
{
    std::vector<std::uint64_t> words;
    for (unsigned i = 0; i < count; i++)
        words.push_back(ctx.proc.alloc_futex_word());
    return words;
}

void spawn_wake_loops(workload_context& ctx, const std::vector<std::uint64_t>& words, unsigned from,
                      unsigned to, std::int64_t gap)
{
    constexpr std::int64_t loop_user_ns = 2;  // the loop around the syscall, in user mode
    for (unsigned i = from; i < to; i++) {
        if (gap)
            ctx.proc.user_work(gap);
        const std::uint64_t uaddr = words[i % words.size()];
        ctx.proc.spawn_thread(fmt::format("waker/{}", i), ctx.cpus, [&ctx, uaddr] {
            while (!ctx.stopping) {
                ctx.proc.sys_futex_wake(uaddr, 1);
                ctx.ops.count();
                ctx.proc.user_work(loop_user_ns);
            }
            thread_exit(ctx);
        });
    }
}

std::int64_t ramp_gap(const run_options& opt, unsigned count)
{
    if (opt.ramp_ms <= 0 || count == 0)
        return 0;
    return static_cast<std::int64_t>(opt.ramp_ms * 1e6 / count);
}

}  // namespace futexsim::sim
