// A glibc-style futex mutex (lll_lock/lll_unlock): T threads over L locks.
// lock: cmpxchg 0 -> 1; on contention, xchg in 2 and FUTEX_WAIT(lock, 2)
// until the xchg returns 0. unlock: `store_wake` stores 0 and always calls
// FUTEX_WAKE; `xchg` swaps in 0 and wakes only if the old value was 2
// (someone may be waiting). Each thread takes lock i % L, spends a short
// critical section, releases it and works outside a while. With --ops N the
// threads share a fixed amount of work (N lock/unlock pairs) and the run
// reports how long it took (work_ms).
#include <fmt/format.h>

#include "run/workloads/workload.h"

namespace futexsim {

namespace {
constexpr vtime critical_section_ns = 100;
constexpr vtime outside_ns = 200;

void lll_lock(workload_context& ctx, std::uint64_t lock)
{
    if (ctx.proc.user_cmpxchg(lock, 0, 1))
        return;
    while (ctx.proc.user_xchg(lock, 2) != 0)
        ctx.proc.sys_futex_wait(lock, 2);
}

void lll_unlock(workload_context& ctx, std::uint64_t lock, bool xchg)
{
    if (xchg) {
        if (ctx.proc.user_xchg(lock, 0) == 2)
            ctx.proc.sys_futex_wake(lock, 1);
        return;
    }
    ctx.proc.user_store(lock, 0);  // store_wake
    ctx.proc.sys_futex_wake(lock, 1);
}
}  // namespace

workload_def mutex_workload()
{
    workload_def w;
    w.name = "mutex";
    w.description = "glibc-style futex mutexes: --locks L, --unlock store_wake|xchg";
    w.flags = {
        whole_flag("locks", 1, 1, 4096, "mutex: number of locks the threads share"),
        choice_flag("unlock", "store_wake", {"store_wake", "xchg"},
                    "mutex: store_wake (always FUTEX_WAKE) or xchg (wake only if contended)"),
        whole_flag("ops", 0, 1, std::uint64_t{1} << 40,
                   "mutex: a fixed amount of work (lock/unlock pairs); reports work_ms"),
    };
    w.flags.back().show_default = false;  // 0: run for --seconds
    w.main = [](workload_context& ctx) {
        const auto num_locks = ctx.whole_param("locks");
        const bool xchg = ctx.param("unlock") == "xchg";
        const std::uint64_t work_ops = ctx.whole_param("ops");
        ctx.work_ops = work_ops;
        auto locks = std::make_shared<std::vector<std::uint64_t>>();
        for (std::uint64_t i = 0; i < num_locks; i++)
            locks->push_back(ctx.proc.alloc_futex_word(0));
        auto unfinished = std::make_shared<std::atomic<unsigned>>(ctx.opt.threads);
        for (unsigned i = 0; i < ctx.opt.threads; i++) {
            const std::uint64_t lock = (*locks)[i % locks->size()];
            // With --ops, thread i's share of the fixed work.
            const std::uint64_t quota = work_ops / ctx.opt.threads + (i < work_ops % ctx.opt.threads ? 1 : 0);
            ctx.proc.spawn_thread(fmt::format("locker/{}", i), ctx.cpus,
                                  [&ctx, lock, quota, unfinished, xchg, work_ops] {
                for (std::uint64_t done = 0; !ctx.stopping && (!work_ops || done < quota); done++) {
                    lll_lock(ctx, lock);
                    ctx.proc.user_work(critical_section_ns);
                    lll_unlock(ctx, lock, xchg);
                    ctx.ops.count();
                    ctx.proc.user_work(outside_ns);
                }
                if (work_ops && --*unfinished == 0 && !ctx.stopping)
                    ctx.work_done_at = ctx.proc.now_ns();
                thread_exit(ctx);
            });
        }
    };
    return w;
}

}  // namespace futexsim
