#include "real/real_process.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <random>
#include <stdexcept>

#include "real/limits.h"
#include "run/stop_signal.h"

namespace futexsim::real {

namespace {
void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    asm volatile("" ::: "memory");
#endif
}
}  // namespace

real_process::real_process() : start_(std::chrono::steady_clock::now()) {}

real_process::~real_process()
{
    join_all();
}

std::uint64_t real_process::alloc_futex_word(std::uint32_t initial)
{
    std::lock_guard lock(memory_mu_);
    user_line& l = memory_.emplace_back();  // a deque never moves what it holds
    l.w.store(initial, std::memory_order_relaxed);
    return reinterpret_cast<std::uint64_t>(&l.w);
}

std::uint32_t real_process::user_load(std::uint64_t uaddr)
{
    return word_at(uaddr).load();
}

void real_process::user_store(std::uint64_t uaddr, std::uint32_t v)
{
    word_at(uaddr).store(v);
}

void real_process::user_add(std::uint64_t uaddr, std::uint32_t delta)
{
    word_at(uaddr).fetch_add(delta);
}

bool real_process::user_cmpxchg(std::uint64_t uaddr, std::uint32_t old, std::uint32_t new_)
{
    return word_at(uaddr).compare_exchange_strong(old, new_);
}

std::uint32_t real_process::user_xchg(std::uint64_t uaddr, std::uint32_t v)
{
    return word_at(uaddr).exchange(v);
}

void real_process::spawn_thread(std::string name, std::vector<unsigned> cpus, std::function<void()> body)
{
    std::lock_guard lock(threads_mu_);
    if (threads_.size() >= max_threads)
        throw std::length_error(fmt::format("more than {} threads on a real backend", max_threads));
    live_.fetch_add(1, std::memory_order_relaxed);
    created_.fetch_add(1, std::memory_order_relaxed);
    auto run = [this, name = std::move(name), cpus = std::move(cpus), body = std::move(body)] {
        pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
        if (!cpus.empty()) {
            cpu_set_t set;
            CPU_ZERO(&set);
            for (unsigned c : cpus)
                if (c < CPU_SETSIZE)
                    CPU_SET(c, &set);
            pthread_setaffinity_np(pthread_self(), sizeof set, &set);
        }
        try {
            on_thread_start();
            body();
            on_thread_end();
        } catch (...) {
            std::lock_guard elock(threads_mu_);
            if (!error_)
                error_ = std::current_exception();
            request_stop();
        }
    };
    try {
        with_sigint_blocked([&] { threads_.emplace_back(std::move(run)); });
    } catch (...) {
        live_.fetch_sub(1, std::memory_order_relaxed);
        throw;
    }
}

void real_process::join_all()
{
    // Threads may still be created while we join (pool-growth's main): join
    // until none is left.
    for (std::size_t i = 0;; i++) {
        std::thread t;
        {
            std::lock_guard lock(threads_mu_);
            if (i >= threads_.size())
                return;
            t = std::move(threads_[i]);
        }
        if (t.joinable()) {
            t.join();
            live_.fetch_sub(1, std::memory_order_relaxed);
        }
    }
}

bool real_process::should_stop() const
{
    return stop_requested().load(std::memory_order_relaxed) ||
           (run_over_ && run_over_->load(std::memory_order_relaxed));
}

void real_process::sys_nanosleep(std::int64_t ns)
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
    while (!should_stop()) {
        const auto left = until - std::chrono::steady_clock::now();
        if (left <= std::chrono::nanoseconds::zero())
            return;
        std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(left, std::chrono::milliseconds(10)));
    }
}

// Short stretches (the 2 ns loop overhead the simulator charges) are a few
// iterations of an empty loop; longer ones spin on the clock.
void real_process::user_work(std::int64_t ns)
{
    if (ns <= 0)
        return;
    if (ns < 1000) {
        for (std::int64_t i = 0; i < ns; i++)
            asm volatile("" ::: "memory");
        return;
    }
    const std::int64_t until = now_ns() + ns;
    while (now_ns() < until && !should_stop())
        cpu_relax();
}

std::int64_t real_process::now_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_)
        .count();
}

double real_process::random_uniform()
{
    thread_local std::mt19937_64 gen{std::random_device{}()};
    return std::uniform_real_distribution<double>(0.0, 1.0)(gen);
}

std::exception_ptr real_process::first_error()
{
    std::lock_guard lock(threads_mu_);
    return error_;
}

}  // namespace futexsim::real
