#include "compare/set_slots_stall.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <fmt/format.h>

#include "model/futex.h"
#include "real/kernel_process.h"
#include "run/stop_signal.h"
#include "sim/timed/process.h"

namespace futexsim::compare {

namespace {

constexpr unsigned num_words = 32;
constexpr std::int64_t pause_between_ns = 1'000'000;
constexpr unsigned sizes[2] = {64, 128};  // alternate, so each call installs a new hash

// The scenario, on any backend: start the wakers, then time each SET_SLOTS
// on the process's clock. `keep_going` tells the main thread whether to
// start another sample.
template <class KeepGoing>
void run_scenario(workload_process& proc, const std::vector<unsigned>& cpus, unsigned wakers, unsigned samples,
                  std::atomic<bool>& stopping, stall_samples& out, KeepGoing keep_going)
{
    std::vector<std::uint64_t> words;
    for (unsigned i = 0; i < num_words; i++)
        words.push_back(proc.alloc_futex_word());
    for (unsigned i = 0; i < wakers; i++) {
        const std::uint64_t w = words[i % num_words];
        proc.spawn_thread(fmt::format("waker/{}", i), cpus, [&proc, &stopping, w] {
            while (!stopping.load(std::memory_order_relaxed)) {
                proc.sys_futex_wake(w, 1);
                proc.user_work(2);
            }
            proc.thread_exit();
        });
    }
    proc.sys_nanosleep(pause_between_ns);  // let the pool's own resize settle
    for (unsigned i = 0; i < samples && keep_going(); i++) {
        out.incomplete = true;
        const std::int64_t t0 = proc.now_ns();
        proc.sys_prctl_futex_hash(model::PR_FUTEX_HASH_SET_SLOTS, sizes[i % 2]);
        if (stopping.load())
            break;  // the wakers were stopped under it: not a measurement
        out.ms.push_back(static_cast<double>(proc.now_ns() - t0) / 1e6);
        out.incomplete = false;
        proc.sys_nanosleep(pause_between_ns);
    }
    stopping = true;
    proc.join_all();
}

}  // namespace

stall_samples measure_set_slots_kernel(unsigned wakers, unsigned samples, double limit_s)
{
    stall_samples out;
    out.wanted = samples;
    real::kernel_process proc;
    std::atomic<bool> stopping{false};
    // A kernel whose pivot latches would block SET_SLOTS (uninterruptibly)
    // for as long as the wakers run: after `limit_s`, stop them, which lets
    // the pivot finish; that sample and the rest are not counted.
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::thread limit;
    with_sigint_blocked([&] {
        limit = std::thread([&] {
            // Also on SIGINT, looked at every 5 ms (the handler cannot notify).
            const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
            std::unique_lock lock(mu);
            while (!done && !sigint_received().load() && std::chrono::steady_clock::now() < until)
                cv.wait_for(lock, std::chrono::milliseconds(5));
            stopping = true;
        });
    });
    auto finish = [&] {
        {
            std::lock_guard lock(mu);
            done = true;
        }
        cv.notify_all();
        limit.join();
    };
    try {
        run_scenario(proc, {}, wakers, samples, stopping, out, [&] { return !stopping.load(); });
    } catch (...) {
        stopping = true;
        proc.join_all();
        finish();
        throw;
    }
    finish();
    return out;
}

stall_samples measure_set_slots_sim(const machine& mach, unsigned wakers, unsigned samples, double limit_s,
                                    std::uint64_t seed)
{
    stall_samples out;
    out.wanted = samples;
    std::atomic<bool> stopping{false};
    sim::sim_process proc(mach, seed);
    std::vector<unsigned> cpus(mach.num_cpus());
    for (unsigned i = 0; i < cpus.size(); i++)
        cpus[i] = i;
    const auto limit = static_cast<vtime>(limit_s * 1e9);
    proc.eng().spawn("main", cpus, [&] {
        run_scenario(proc, cpus, wakers, samples, stopping, out, [&] { return proc.eng().now() < limit; });
    }, 0);
    proc.eng().set_interrupt(&sigint_received());  // the caller sees it and drops the row
    proc.eng().run_until(limit);
    const stall_samples measured = out;  // what the drain below adds is past the limit
    // Out of time with a SET_SLOTS still blocked: stop the wakers so that
    // the process can wind down, as the kernel run would.
    stopping = true;
    proc.eng().run_until(limit + 2'000'000'000);
    return measured;
}

}  // namespace futexsim::compare
