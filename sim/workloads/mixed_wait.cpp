// Waits whose outcomes mix as on real hosts (experiments/reference/wait_outcomes.csv: woken 88.6%,
// -ETIMEDOUT 9.5%, -EWOULDBLOCK 1.9% by default, --mix W/T/M). Half the
// threads wait, each on its own word; each of the other half keeps waking
// one waiter's word (bump, then FUTEX_WAKE). Per wait, a waiter draws from
// the seed what it does: wait for its waker, wait with a 20 us timeout on a
// word nobody wakes, or wait with a stale value (mismatch).
#include <fmt/format.h>

#include "sim/workloads/workload.h"

namespace futexsim::sim {

namespace {
constexpr long timeout_ns = 20'000;
constexpr vtime waker_period_ns = 2'000;
constexpr vtime loop_user_ns = 2;
}  // namespace

workload_def mixed_wait_workload()
{
    workload_def w;
    w.name = "mixed-wait";
    w.description = "waits that are woken, time out or mismatch in a given ratio (--mix)";
    w.flags = {"--mix"};
    w.main = [](workload_context& ctx) {
        const unsigned waiters = std::max(1u, ctx.opt.threads / 2);
        const unsigned wakers = std::max(1u, ctx.opt.threads - waiters);
        const double total = ctx.opt.mix_woken + ctx.opt.mix_timeout + ctx.opt.mix_mismatch;
        const double p_mismatch = ctx.opt.mix_mismatch / total;
        const double p_timeout = ctx.opt.mix_timeout / total;
        std::vector<std::uint64_t> words, quiet;
        for (unsigned i = 0; i < waiters; i++) {
            words.push_back(ctx.proc.alloc_futex_word(0));
            quiet.push_back(ctx.proc.alloc_futex_word(0));
        }
        for (unsigned i = 0; i < waiters; i++) {
            const std::uint64_t word = words[i], idle = quiet[i];
            ctx.proc.spawn_thread(fmt::format("waiter/{}", i), ctx.cpus, [&ctx, word, idle, p_mismatch, p_timeout] {
                while (!ctx.stopping) {
                    const double r = ctx.proc.random_uniform();
                    const std::uint32_t seq = ctx.proc.user_load(word);
                    if (r < p_mismatch)
                        ctx.proc.sys_futex_wait(word, seq + 1);
                    else if (r < p_mismatch + p_timeout)
                        ctx.proc.sys_futex_wait(idle, 0, timeout_ns);
                    else
                        ctx.proc.sys_futex_wait(word, seq, 10'000'000);
                    ctx.ops.count();
                    ctx.proc.user_work(loop_user_ns);
                }
                thread_exit(ctx);
            });
        }
        for (unsigned i = 0; i < wakers; i++) {
            const std::uint64_t word = words[i % waiters];
            ctx.proc.spawn_thread(fmt::format("waker/{}", i), ctx.cpus, [&ctx, word] {
                while (!ctx.stopping) {
                    ctx.proc.user_work(waker_period_ns);
                    ctx.proc.user_add(word, 1);
                    ctx.proc.sys_futex_wake(word, 1);
                }
                thread_exit(ctx);
            });
        }
    };
    return w;
}

}  // namespace futexsim::sim
