// Reproducer 1 of calibration.md: N threads created back to back, each
// loops FUTEX_WAKE_PRIVATE at once (no start barrier) on one of 32 words,
// one per cache line, that nobody waits on. Each iteration takes and drops
// one hash reference and nothing else.
#include <fmt/format.h>

#include "sim/workloads/workload.h"

namespace futexsim::sim {

namespace {
constexpr unsigned num_words = 32;
constexpr vtime loop_user_ns = 2;  // the loop around the syscall, in user mode
}  // namespace

workload_def wake_nowaiters_workload()
{
    workload_def w;
    w.name = "wake-nowaiters";
    w.description = "FUTEX_WAKE_PRIVATE in a loop on 32 words with no waiters (reproducer 1)";
    w.main = [](workload_context& ctx) {
        std::vector<std::uint64_t> words;
        for (unsigned i = 0; i < num_words; i++)
            words.push_back(ctx.proc.alloc_futex_word());
        const vtime gap = ramp_gap(ctx.opt, ctx.opt.threads);
        for (unsigned i = 0; i < ctx.opt.threads; i++) {
            if (gap)
                ctx.proc.user_work(gap);
            const std::uint64_t uaddr = words[i % num_words];
            ctx.proc.sys_clone(fmt::format("waker/{}", i), ctx.cpus, [&ctx, uaddr] {
                while (!ctx.stopping) {
                    ctx.proc.sys_futex_wake(uaddr, 1);
                    ctx.ops.count();
                    ctx.proc.user_work(loop_user_ns);
                }
                thread_exit(ctx);
            });
        }
    };
    return w;
}

}  // namespace futexsim::sim
