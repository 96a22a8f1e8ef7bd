// Reproducer 1 of experiments/reference/README.md: N threads created back to back, each
// loops FUTEX_WAKE_PRIVATE at once (no start barrier) on one of 32 words,
// one per cache line, that nobody waits on. Each iteration takes and drops
// one hash reference and nothing else.
#include "run/workloads/workload.h"

namespace futexsim {

workload_def wake_nowaiters_workload()
{
    workload_def w;
    w.name = "wake-nowaiters";
    w.description = "FUTEX_WAKE_PRIVATE in a loop on 32 words with no waiters (reproducer 1)";
    w.stationary_after_main = true;
    w.main = [](workload_context& ctx) {
        const auto words = alloc_futex_words(ctx, 32);
        spawn_wake_loops(ctx, words, 0, ctx.opt.threads, ramp_gap(ctx.opt, ctx.opt.threads));
    };
    return w;
}

}  // namespace futexsim
