// A pool that grows under load: --start-threads A threads loop
// FUTEX_WAKE_PRIVATE as in wake-nowaiters; halfway through the run, B - A
// more join (spread over --ramp-ms) while the first keep working. The run
// reports throughput and slots per phase.
#include "sim/workloads/workload.h"

namespace futexsim::sim {

workload_def pool_growth_workload()
{
    workload_def w;
    w.name = "pool-growth";
    w.description = "--start-threads A work, then the pool grows to --threads B halfway through";
    w.flags = {"--start-threads"};
    w.main = [](workload_context& ctx) {
        const auto words = alloc_futex_words(ctx, 32);
        const unsigned start = std::min(ctx.opt.start_threads, ctx.opt.threads);
        ctx.mark_phase("start");
        spawn_wake_loops(ctx, words, 0, start, 0);
        const vtime half = static_cast<vtime>(ctx.opt.seconds * 1e9 / 2);
        if (ctx.proc.now_ns() < half)
            ctx.proc.sys_nanosleep(half - ctx.proc.now_ns());
        ctx.mark_phase("grown");
        spawn_wake_loops(ctx, words, start, ctx.opt.threads, ramp_gap(ctx.opt, ctx.opt.threads - start));
    };
    return w;
}

}  // namespace futexsim::sim
