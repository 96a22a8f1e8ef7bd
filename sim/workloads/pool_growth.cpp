// A pool that grows under load: --start-threads A threads loop
// FUTEX_WAKE_PRIVATE as in wake-nowaiters; halfway through the run, B - A
// more join (spread over --ramp-ms) while the first keep working. The run
// reports throughput and slots per phase.
#include <fmt/format.h>

#include "sim/workloads/workload.h"

namespace futexsim::sim {

namespace {
constexpr unsigned num_words = 32;
constexpr vtime loop_user_ns = 2;

void spawn_wakers(workload_context& ctx, const std::vector<std::uint64_t>& words, unsigned from,
                  unsigned to, vtime gap)
{
    for (unsigned i = from; i < to; i++) {
        if (gap)
            ctx.proc.user_work(gap);
        const std::uint64_t uaddr = words[i % words.size()];
        ctx.proc.sys_clone(fmt::format("waker/{}", i), ctx.cpus, [&ctx, uaddr] {
            while (!ctx.stopping) {
                ctx.proc.sys_futex_wake(uaddr, 1);
                ctx.ops.count();
                ctx.proc.user_work(loop_user_ns);
            }
            thread_exit(ctx);
        });
    }
}
}  // namespace

workload_def pool_growth_workload()
{
    workload_def w;
    w.name = "pool-growth";
    w.description = "--start-threads A work, then the pool grows to --threads B halfway through";
    w.flags = {"--start-threads"};
    w.main = [](workload_context& ctx) {
        std::vector<std::uint64_t> words;
        for (unsigned i = 0; i < num_words; i++)
            words.push_back(ctx.proc.alloc_futex_word());
        const unsigned start = std::min(ctx.opt.start_threads, ctx.opt.threads);
        ctx.mark_phase("start");
        spawn_wakers(ctx, words, 0, start, 0);
        const vtime half = static_cast<vtime>(ctx.opt.seconds * 1e9 / 2);
        if (ctx.proc.eng().now() < half)
            ctx.proc.sys_nanosleep(half - ctx.proc.eng().now());
        ctx.mark_phase("grown");
        spawn_wakers(ctx, words, start, ctx.opt.threads, ramp_gap(ctx.opt, ctx.opt.threads - start));
    };
    return w;
}

}  // namespace futexsim::sim
