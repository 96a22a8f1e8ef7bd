// What both real backends share: futex words in this process's memory, real
// threads (std::thread, pinned to the allowed CPUs, SIGINT blocked), the
// monotonic clock, a per-thread random generator and busy user work. The
// futex operations themselves are the subclasses' (kernel_process: system
// calls; threads_process: the model on threads_env).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "run/workloads/workload_process.h"

namespace futexsim::real {

class real_process : public workload_process {
public:
    real_process();
    ~real_process() override;  // joins whatever is still running
    real_process(const real_process&) = delete;
    real_process& operator=(const real_process&) = delete;

    std::uint64_t alloc_futex_word(std::uint32_t initial = 0) override;
    std::uint32_t user_load(std::uint64_t uaddr) override;
    void user_store(std::uint64_t uaddr, std::uint32_t v) override;
    void user_add(std::uint64_t uaddr, std::uint32_t delta) override;
    bool user_cmpxchg(std::uint64_t uaddr, std::uint32_t old, std::uint32_t new_) override;
    std::uint32_t user_xchg(std::uint64_t uaddr, std::uint32_t v) override;

    // Refuses the thread past limits.h's cap (std::length_error).
    void spawn_thread(std::string name, std::vector<unsigned> cpus, std::function<void()> body) override;
    void join_all() override;
    // A sleep, and user work of a microsecond or more (a --ramp-ms gap),
    // end early when a stop was requested (SIGINT) or the run is ending
    // (stop_waits_on()): a long ramp must not keep the run alive.
    void sys_nanosleep(std::int64_t ns) override;
    void user_work(std::int64_t ns) override;
    // Also end those waits once `*run_over` is set (the run's `stopping`).
    void stop_waits_on(const std::atomic<bool>* run_over) { run_over_ = run_over; }
    std::int64_t now_ns() override;
    double random_uniform() override;

    // Threads created and not yet joined.
    unsigned live_threads() const { return live_.load(std::memory_order_relaxed); }
    // Threads spawn_thread() has created so far (a run's window may end
    // before the workload has created them all: run_real() warns).
    unsigned threads_created() const { return created_.load(std::memory_order_relaxed); }
    // The first exception a thread's body threw, if any (rethrown by the run).
    std::exception_ptr first_error();

protected:
    static std::atomic<std::uint32_t>& word_at(std::uint64_t uaddr)
    {
        return *reinterpret_cast<std::atomic<std::uint32_t>*>(uaddr);
    }
    // Called on the new thread before its body, and after it (both backends
    // hook RCU registration and the exit-time futex wake here).
    virtual void on_thread_start() {}
    virtual void on_thread_end() {}

private:
    struct alignas(64) user_line {
        std::atomic<std::uint32_t> w;
    };
    std::mutex memory_mu_;
    std::deque<user_line> memory_;
    std::mutex threads_mu_;
    std::vector<std::thread> threads_;
    std::atomic<unsigned> live_{0};
    std::atomic<unsigned> created_{0};
    std::exception_ptr error_;
    std::chrono::steady_clock::time_point start_;
    const std::atomic<bool>* run_over_ = nullptr;
    bool should_stop() const;
};

}  // namespace futexsim::real
