// futexsim probe's measurements of the machine's caches and cores: one-way
// cache-line transfers by ping-pong between pinned threads, what a load does
// to a line another core wrote, how long a line's holder keeps it, a locked
// RMW and the core clock. The system-call split is probe/syscall_split.cpp.
#include "probe/measure.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <new>
#include <thread>

#include "real/host_futex.h"

namespace futexsim::probe {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

void pin_self(unsigned cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (const int err = pthread_setaffinity_np(pthread_self(), sizeof set, &set); err != 0)
        throw std::runtime_error(fmt::format("cannot pin a thread to CPU {}: {}", cpu, std::strerror(err)));
}

double at(const std::vector<double>& sorted, double rank)
{
    const auto i = static_cast<long>(std::lround(rank));
    return sorted[static_cast<std::size_t>(std::clamp<long>(i, 0, static_cast<long>(sorted.size()) - 1))];
}

// Spins until `v` holds `from`, then swaps in `to` (a compare-and-swap,
// as the published core-to-core tests do); false if `give_up()`, asked
// every 65536 tries, said so first.
template <class GiveUp>
bool swap_when(std::atomic<std::uint64_t>& v, std::uint64_t from, std::uint64_t to, GiveUp give_up)
{
    unsigned spins = 0;
    for (std::uint64_t expect = from; !v.compare_exchange_strong(expect, to); expect = from)
        if ((++spins & 0xffff) == 0 && give_up())
            return false;
    return true;
}

// Pins the calling thread; on failure says why in `error` and raises `stop`.
void pin_or_stop(unsigned cpu, std::string& error, std::atomic<bool>& stop)
{
    try {
        pin_self(cpu);
    } catch (const std::exception& e) {
        error = e.what();
        stop = true;
    }
}

}  // namespace

summary summarize(std::vector<double> v)
{
    summary s;
    s.n = static_cast<unsigned>(v.size());
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    const double n = static_cast<double>(v.size());
    const double mid = (n - 1) / 2;
    s.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    s.p10 = at(v, 0.1 * (n - 1));
    s.p90 = at(v, 0.9 * (n - 1));
    s.ci_lo = at(v, mid - 0.98 * std::sqrt(n));
    s.ci_hi = at(v, mid + 0.98 * std::sqrt(n));
    return s;
}

summary pingpong_one_way_ns(unsigned a, unsigned b, const pingpong_options& opt)
{
    struct alignas(64) line {
        std::atomic<std::uint64_t> value{0};
    };
    line shared;
    alignas(64) std::atomic<bool> stop{false};
    alignas(64) std::atomic<int> ready{0};
    const std::uint64_t total = std::uint64_t{opt.batches} * opt.round_trips;
    std::string error_a, error_b;

    // B answers every odd value with the next even one until A is done.
    std::thread responder([&] {
        pin_or_stop(b, error_b, stop);
        ready.fetch_add(1);
        const auto stopped = [&] { return stop.load(std::memory_order_relaxed); };
        for (std::uint64_t i = 0; i < total && !stopped(); i++)
            swap_when(shared.value, 2 * i + 1, 2 * i + 2, stopped);
    });
    std::vector<double> per_batch;
    pin_or_stop(a, error_a, stop);
    ready.fetch_add(1);
    while (ready.load() < 2)
        std::this_thread::yield();
    const auto start = clock_type::now();
    const auto too_long = [&] {
        if (seconds_since(start) > opt.limit_s)
            stop = true;
        return stop.load();
    };
    for (unsigned batch = 0; batch < opt.batches && !stop.load(); batch++) {
        const auto t0 = clock_type::now();
        for (unsigned r = 0; r < opt.round_trips && !stop.load(std::memory_order_relaxed); r++) {
            const std::uint64_t i = std::uint64_t{batch} * opt.round_trips + r;
            swap_when(shared.value, 2 * i, 2 * i + 1, too_long);
        }
        if (stop.load())
            break;
        // A's first CAS of the batch starts it, B's answer to the last ends it.
        while (shared.value.load() != 2 * (std::uint64_t{batch} + 1) * opt.round_trips)
            if (seconds_since(start) > opt.limit_s) {
                stop = true;
                break;
            }
        if (stop.load())
            break;
        per_batch.push_back(std::chrono::duration<double, std::nano>(clock_type::now() - t0).count() /
                            (2.0 * opt.round_trips));
        if (seconds_since(start) > opt.limit_s)
            break;
    }
    stop = true;
    responder.join();
    if (!error_a.empty() || !error_b.empty())
        throw std::runtime_error(error_a.empty() ? error_b : error_a);
    return summarize(per_batch);
}

read_then_rmw measure_read_then_rmw(unsigned a, unsigned b, unsigned handoffs_per_row, double limit_s)
{
    enum : unsigned { m_empty, m_load, m_load_cmpxchg, m_cmpxchg, num_modes };
    struct alignas(64) line {
        std::atomic<std::uint64_t> value{0};
    };
    line data, turn;
    alignas(64) std::atomic<bool> stop{false};
    const std::uint64_t total = std::uint64_t{handoffs_per_row} * num_modes;
    std::string error_a, error_b;
    const auto stopped = [&] { return stop.load(std::memory_order_relaxed); };

    // A: on odd turn 2k+1, write the line, then pass the turn on (2k+2).
    std::thread writer([&] {
        pin_or_stop(a, error_a, stop);
        for (std::uint64_t k = 0; k < total && !stopped(); k++) {
            while (turn.value.load(std::memory_order_acquire) != 2 * k + 1)
                if (stopped())
                    return;
            data.value.fetch_add(1, std::memory_order_seq_cst);
            turn.value.store(2 * k + 2, std::memory_order_release);
        }
    });
    pin_or_stop(b, error_b, stop);
    std::vector<double> rows[num_modes];
    const auto start = clock_type::now();
    std::uint64_t sink = 0;
    for (std::uint64_t k = 0; k < total && !stopped(); k++) {
        turn.value.store(2 * k + 1, std::memory_order_release);
        while (turn.value.load(std::memory_order_acquire) != 2 * k + 2)
            if (seconds_since(start) > limit_s)
                stop = true;
        if (stopped())
            break;
        const unsigned mode = static_cast<unsigned>(k % num_modes);
        const auto t0 = clock_type::now();
        switch (mode) {
        case m_empty:
            break;
        case m_load:
            sink += data.value.load(std::memory_order_relaxed);
            break;
        case m_load_cmpxchg: {
            std::uint64_t c = data.value.load(std::memory_order_relaxed);
            while (!data.value.compare_exchange_weak(c, c, std::memory_order_seq_cst)) {
            }
            sink += c;
            break;
        }
        default: {
            std::uint64_t c = ~std::uint64_t{0};  // never the value: a failed cmpxchg still takes the line
            data.value.compare_exchange_strong(c, c, std::memory_order_seq_cst);
            sink += c;
            break;
        }
        }
        const auto t1 = clock_type::now();
        rows[mode].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    stop = true;
    writer.join();
    if (!error_a.empty() || !error_b.empty())
        throw std::runtime_error(error_a.empty() ? error_b : error_a);
    volatile std::uint64_t keep = sink;  // the loads are used
    (void)keep;
    read_then_rmw r;
    r.empty = summarize(rows[m_empty]);
    r.load = summarize(rows[m_load]);
    r.load_cmpxchg = summarize(rows[m_load_cmpxchg]);
    r.cmpxchg = summarize(rows[m_cmpxchg]);
    return r;
}

namespace {

// `n` dependent register adds on `x` (one cycle each, as core_ghz()'s).
inline std::uint64_t add_chain(std::uint64_t x, unsigned n)
{
    const std::uint64_t one = 1;
    for (unsigned i = 0; i < n; i++) {
#if defined(__x86_64__)
        asm volatile("add %1, %0" : "+r"(x) : "r"(one));
#elif defined(__aarch64__)
        asm volatile("add %0, %0, %1" : "+r"(x) : "r"(one));
#else
        x += one;
        asm volatile("" : "+r"(x));
#endif
    }
    return x;
}

// ns per add of add_chain(), timed alone.
double ns_per_chained_add()
{
    constexpr unsigned n = 1u << 20;
    std::vector<double> v;
    std::uint64_t x = 0;
    for (unsigned b = 0; b < 21; b++) {
        const auto t0 = clock_type::now();
        x = add_chain(x, n);
        v.push_back(std::chrono::duration<double, std::nano>(clock_type::now() - t0).count() / n);
    }
    volatile std::uint64_t keep = x;
    (void)keep;
    return summarize(v).median;
}

}  // namespace

double hold_window::window_ns() const
{
    for (std::size_t i = 0; i < kept.size(); i++) {
        if (kept[i] >= 0.5)
            continue;
        if (i == 0)
            return delay_ns[0];
        const double f = (kept[i - 1] - 0.5) / (kept[i - 1] - kept[i]);
        return delay_ns[i - 1] + f * (delay_ns[i] - delay_ns[i - 1]);
    }
    return -1;
}

hold_window measure_hold_window(unsigned a, unsigned b, unsigned pairs_per_delay, unsigned step_adds, double limit_s)
{
    struct alignas(64) line {
        std::atomic<std::uint64_t> value{0};
    };
    line data;
    alignas(64) std::atomic<bool> stop{false};
    alignas(64) std::atomic<bool> started{false};
    std::string error_a, error_b;
    std::thread hammer([&] {
        pin_or_stop(b, error_b, stop);
        started = true;
        while (!stop.load(std::memory_order_relaxed))
            data.value.fetch_add(1, std::memory_order_seq_cst);
    });
    pin_or_stop(a, error_a, stop);
    while (!started.load() && !stop.load())
        std::this_thread::yield();
    hold_window w;
    w.pairs_per_delay = pairs_per_delay;
    const double ns_per_add = ns_per_chained_add();
    // Long enough for several of b's increments to take the line back.
    constexpr unsigned gap_adds = 4096;
    const auto start = clock_type::now();
    unsigned low_in_a_row = 0;
    for (unsigned n = 0; low_in_a_row < 4 && !stop.load() && seconds_since(start) < limit_s; n += step_adds) {
        unsigned same = 0;
        for (unsigned i = 0; i < pairs_per_delay; i++) {
            const std::uint64_t gap = add_chain(i, gap_adds);
            const std::uint64_t first = data.value.fetch_add(1 + (gap == 0), std::memory_order_seq_cst);
            // The chain starts from the value the first increment returned,
            // so it starts when the line has arrived; the second increment's
            // addend depends on its end (always 1: the chain adds n to a
            // count that stays far below 2^64 - n).
            const std::uint64_t end = add_chain(first, n);
            const std::uint64_t second = data.value.fetch_add(1 + (end < first), std::memory_order_seq_cst);
            same += second == first + 1;
        }
        w.delay_ns.push_back(n * ns_per_add);
        w.kept.push_back(static_cast<double>(same) / pairs_per_delay);
        low_in_a_row = w.kept.back() < 0.05 ? low_in_a_row + 1 : 0;
    }
    stop = true;
    hammer.join();
    if (!error_a.empty() || !error_b.empty())
        throw std::runtime_error(error_a.empty() ? error_b : error_a);
    return w;
}

summary locked_rmw_ns(unsigned batches)
{
    alignas(64) std::atomic<std::uint64_t> owned{0};
    constexpr unsigned ops = 100000;
    std::vector<double> v;
    std::uint64_t sink = 0;
    for (unsigned b = 0; b < batches; b++) {
        const auto t0 = clock_type::now();
        for (unsigned i = 0; i < ops; i++)
            sink += owned.fetch_add(1, std::memory_order_seq_cst);  // lock xadd on x86
        v.push_back(std::chrono::duration<double, std::nano>(clock_type::now() - t0).count() / ops);
    }
    if (sink == 1)  // never: keeps the results used
        v.push_back(0);
    return summarize(v);
}

summary core_ghz(unsigned batches)
{
#if defined(__x86_64__) || defined(__aarch64__)
    constexpr unsigned loops = 10000;  // of 100 dependent register adds each: about half a millisecond
    std::vector<double> v;
    for (unsigned b = 0; b < batches; b++) {
        std::uint64_t x = b;
        // The addend is a register, not an immediate: Intel cores since
        // Golden Cove fold chains of small immediate adds at rename, so an
        // `add $1` chain runs several per cycle there (a 2.3 GHz Emerald
        // Rapids part read 10.2-10.5 GHz that way); a register-register add
        // is one cycle of latency on every x86-64 and arm64 core.
        const std::uint64_t one = 1;
        const auto t0 = clock_type::now();
        for (unsigned i = 0; i < loops; i++) {
#if defined(__x86_64__)
#define FUTEXSIM_ADD10 "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t" \
                       "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
#else
#define FUTEXSIM_ADD10 "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t" \
                       "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t" \
                       "add %0, %0, %1\n\tadd %0, %0, %1\n\t"
#endif
            asm volatile(FUTEXSIM_ADD10 FUTEXSIM_ADD10 FUTEXSIM_ADD10 FUTEXSIM_ADD10 FUTEXSIM_ADD10
                             FUTEXSIM_ADD10 FUTEXSIM_ADD10 FUTEXSIM_ADD10 FUTEXSIM_ADD10 FUTEXSIM_ADD10
                         : "+r"(x)
                         : "r"(one));
#undef FUTEXSIM_ADD10
        }
        const double ns = std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
        v.push_back(100.0 * loops / ns);
    }
    return summarize(v);
#else
    (void)batches;
    return {};
#endif
}

}  // namespace futexsim::probe
