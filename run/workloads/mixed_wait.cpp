// Waits whose outcomes mix as on real hosts (experiments/reference/wait_outcomes.csv: woken 88.6%,
// -ETIMEDOUT 9.5%, -EWOULDBLOCK 1.9% by default, --mix W/T/M). Half the
// threads wait, each on its own word; each of the other half keeps waking
// one waiter's word (bump, then FUTEX_WAKE). Per wait, a waiter draws from
// the seed what it does: wait for its waker, wait with a 20 us timeout on a
// word nobody wakes, or wait with a stale value (mismatch).
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "run/strict_numbers.h"
#include "run/workloads/workload.h"

namespace futexsim {

namespace {

// --mix: percentages are written with one or two decimals; 33.33 x 3 is fine.
constexpr double mix_tolerance = 0.05;

struct mix {
    double woken, timeout, mismatch;
};

// --mix WOKEN/TIMEOUT/MISMATCH: three percentages that add up to 100.
// Anything else is refused rather than normalised: 50/40/5 may be a typo
// for 50/45/5, and we cannot tell.
mix parse_mix(const std::string& text)
{
    const auto bad = [&](const std::string& why) {
        return std::invalid_argument(fmt::format("--mix '{}': {}; expected WOKEN/TIMEOUT/MISMATCH percentages "
                                                 "adding up to 100, e.g. 88.6/9.5/1.9",
                                                 text, why));
    };
    double share[3];
    std::size_t from = 0;
    for (int i = 0; i < 3; i++) {
        const std::size_t slash = text.find('/', from);
        if ((i < 2) != (slash != std::string::npos))
            throw bad("not three shares");
        const auto v = parse_real(text.substr(from, slash == std::string::npos ? slash : slash - from));
        if (!v || *v < 0 || *v > 100)
            throw bad("each share is a number from 0 to 100");
        share[i] = *v;
        from = slash + 1;
    }
    const double sum = share[0] + share[1] + share[2];
    if (std::abs(sum - 100) > mix_tolerance)
        throw bad(fmt::format("they add up to {:g}", sum));
    return {share[0], share[1], share[2]};
}
constexpr long timeout_ns = 20'000;
constexpr vtime waker_period_ns = 2'000;
constexpr vtime loop_user_ns = 2;
}  // namespace

workload_def mixed_wait_workload()
{
    workload_def w;
    w.name = "mixed-wait";
    w.description = "waits that are woken, time out or mismatch in a given ratio (--mix)";
    w.flags = {text_flag("mix", "88.6/9.5/1.9", [](const std::string& text) { parse_mix(text); },
                         "mixed-wait: percentages of waits woken/timed out/mismatched, adding up to 100")};
    w.stationary_after_main = true;
    w.main = [](workload_context& ctx) {
        const unsigned waiters = std::max(1u, ctx.opt.threads / 2);
        const unsigned wakers = std::max(1u, ctx.opt.threads - waiters);
        const mix m = parse_mix(ctx.param("mix"));
        const double total = m.woken + m.timeout + m.mismatch;
        const double p_mismatch = m.mismatch / total;
        const double p_timeout = m.timeout / total;
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

}  // namespace futexsim
