// The shape of `perf bench futex hash`: each thread owns an array of futex
// words, all zero, and loops FUTEX_WAIT(word, 1234) over them, so every
// wait mismatches (EWOULDBLOCK): only the path up to the value check runs.
#include <fmt/format.h>

#include "run/workloads/workload.h"

namespace futexsim {

namespace {
constexpr unsigned futexes_per_thread = 1024;  // perf bench's default
constexpr std::uint32_t expected_value = 1234;
constexpr vtime loop_user_ns = 2;
}  // namespace

workload_def hash_bench_workload()
{
    workload_def w;
    w.name = "hash-bench";
    w.description = "perf bench futex hash: FUTEX_WAIT that always mismatches, 1024 words per thread";
    w.main = [](workload_context& ctx) {
        for (unsigned i = 0; i < ctx.opt.threads; i++) {
            auto words = std::make_shared<std::vector<std::uint64_t>>();
            for (unsigned k = 0; k < futexes_per_thread; k++)
                words->push_back(ctx.proc.alloc_futex_word(0));
            ctx.proc.spawn_thread(fmt::format("bench/{}", i), ctx.cpus, [&ctx, words] {
                while (!ctx.stopping)
                    for (std::uint64_t uaddr : *words) {
                        ctx.proc.sys_futex_wait(uaddr, expected_value);
                        ctx.ops.count();
                        ctx.proc.user_work(loop_user_ns);
                        if (ctx.stopping)
                            break;
                    }
                thread_exit(ctx);
            });
        }
    };
    return w;
}

}  // namespace futexsim
