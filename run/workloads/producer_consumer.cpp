// Reproducer 2 of experiments/reference/README.md: half the threads park in plain FUTEX_WAIT
// like idle pool workers, the other half issue plain FUTEX_WAKE on the same
// words, so waiters wake, loop and re-park. Only FUTEX_WAIT and FUTEX_WAKE:
// nobody writes the words, so every wait finds the value it expects and
// parks; a consumer runs only when a producer has woken it. --ramp-ms
// spreads the creation of the producers over that long, as a pool that
// grows under load.
#include <fmt/format.h>

#include "run/workloads/workload.h"

namespace futexsim {

namespace {
constexpr unsigned num_words = 32;
constexpr vtime loop_user_ns = 2;
}  // namespace

workload_def producer_consumer_workload()
{
    workload_def w;
    w.name = "producer-consumer";
    w.description = "FUTEX_WAIT consumers and FUTEX_WAKE producers on 32 shared words (reproducer 2)";
    w.stationary_after_main = true;
    w.main = [](workload_context& ctx) {
        const auto words = alloc_futex_words(ctx, num_words);
        const unsigned consumers = std::max(1u, ctx.opt.threads / 2);
        const unsigned producers = std::max(1u, ctx.opt.threads - consumers);
        for (unsigned i = 0; i < consumers; i++) {
            const std::uint64_t uaddr = words[i % num_words];
            ctx.proc.spawn_thread(fmt::format("consumer/{}", i), ctx.cpus, [&ctx, uaddr] {
                while (!ctx.stopping) {
                    // A bounded sleep, so a consumer also leaves when nobody wakes it.
                    ctx.proc.sys_futex_wait(uaddr, 0, 10'000'000);
                    ctx.ops.count();
                    ctx.proc.user_work(loop_user_ns);
                }
                thread_exit(ctx);
            });
        }
        const vtime gap = ramp_gap(ctx.opt, producers);
        for (unsigned i = 0; i < producers; i++) {
            if (gap)
                ctx.proc.user_work(gap);
            const std::uint64_t uaddr = words[i % num_words];
            ctx.proc.spawn_thread(fmt::format("producer/{}", i), ctx.cpus, [&ctx, uaddr] {
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

}  // namespace futexsim
