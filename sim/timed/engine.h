// The discrete-event engine: virtual time, tasks as Boost.Context fibers,
// virtual CPUs with tick-driven time slicing, and the typed event queue.
// What else takes part in a run (the cache model, RCU) registers with it as
// an event source (sim/timed/event_source.h); the engine includes neither.
//
// A running task advances its own clock (charge()) and may run ahead of the
// event queue by at most `lookahead_ns` before it yields; everything that
// other CPUs can observe (a cache-line transfer, a wake-up) is an event at
// the task's local time, so events are processed in time order and a run is
// a pure function of its inputs and seed.
//
// A task that stops running takes the loop on, on its own stack, and
// switches straight to the next task to run (leave()): one fiber switch per
// resumption instead of two through the loop's fiber, and none when the
// next task to run is itself.
#pragma once

#include <boost/context/fiber.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "run/vtime.h"
#include "sim/kernel/task.h"
#include "sim/observer_list.h"
#include "sim/rng.h"
#include "sim/schedule.h"
#include "sim/timed/event_queue.h"
#include "sim/timed/event_source.h"
#include "sim/timed/observer.h"

namespace futexsim::sim {

enum class task_mode : std::uint8_t { user, kernel };
enum class task_state : std::uint8_t { runnable, running, spinning, blocked, exited };

class engine;

// A task: the kernel runtime's per-task state (sim/kernel/task.h: preempt
// and RCU nesting, which the engine reads to find preemption points and
// quiescent states, and the sleep bookkeeping block() and wake() keep), and
// what the engine schedules.
struct task : kernel::task_struct {
    std::uint32_t id = 0;
    std::string name;
    bool kernel_thread = false;  // not counted in the process's threads
    task_state state = task_state::runnable;
    task_mode mode = task_mode::user;
    int cpu = -1;       // the vCPU it runs or waits on
    int last_cpu = -1;  // where it last ran
    std::vector<unsigned> allowed;  // CPU affinity, sorted
    std::uint32_t gen = 0;          // bumps on every wake: stale events are dropped
    // Returns to user mode so far: a point where it could have been switched
    // out (the soft-lockup watchdog, sim/timed/progress_watch.h, counts them).
    std::uint64_t user_returns = 0;
    // The kernel instructions' cost (sim/timed/site_costs.h): the site of its
    // previous access (on its path: sim/timed/site_costs.h), and the picoseconds
    // not yet charged.
    std::uint16_t last_site = 1;  // site_costs::exit
    std::uint32_t site_carry_ps = 0;
    std::function<void()> body;
    boost::context::fiber fib;
};

struct vcpu {
    int current = -1;                   // task id, -1 when idle
    std::deque<std::uint32_t> runqueue; // runnable tasks waiting for this CPU
    bool need_resched = false;
    bool urgent_resched = false;        // a softirq task is waiting
    vtime slice_start = 0;
    std::int64_t sampled_tick = -1;     // last tick whose state was recorded
    // When it last went idle; before the run it had been idle a long time,
    // so its first wake-up comes from the deepest idle state.
    vtime idle_since = -1'000'000'000;
};

struct engine_config {
    vtime lookahead_ns = 1000;
    vtime sched_slice_ns = 3'000'000;  // CFS-like slice for tasks sharing a CPU
    std::size_t stack_bytes = 128 * 1024;
    // Shortcuts that give byte-identical runs (post_now(), the loop run on
    // a task's stack by leave()); off:
    // every event takes the trip through the queue, the reference the fast
    // paths are checked against (tests/sim/fast_path_test.cpp).
    bool fast_paths = true;
};

class engine {
public:
    engine(const machine& m, std::uint64_t seed, engine_config cfg = {});
    ~engine();
    engine(const engine&) = delete;
    engine& operator=(const engine&) = delete;

    const machine& mach() const { return machine_; }
    vtime now() const { return now_; }
    vtime lookahead() const { return cfg_.lookahead_ns; }
    vtime tick_ns() const { return tick_ns_; }
    // Timing jitter (cache-line legs, system-call costs): the run's "jitter"
    // stream (sim/rng.h); the engine's own placement draws use another.
    rng64& jitter_rng() { return jitter_rng_; }
    // An event source takes part in the run from now on (sim/timed/event_source.h);
    // returns its number for post(). At most 255.
    std::uint8_t add_source(event_source* s);
    // Queue an event for `source` at `at`: its on_event(what, arg) runs then.
    void post(std::uint8_t source, vtime at, std::uint8_t what, std::uint32_t arg);
    // post() at now() from the running task, which then suspend()s. When
    // that event is the one the loop would take next, it runs here at once
    // (on_event on the task's stack, counted as an event) instead of a trip
    // through the queue: the same events in the same order, so the run is
    // byte-identical (tests/sim/fast_path_test.cpp).
    void post_now(std::uint8_t source, std::uint8_t what, std::uint32_t arg);
    // A source that needs to hear of preemption points (RCU asking laggard
    // CPUs for a quiescent state) switches them on; off when it no longer does.
    void want_preemption_points(bool on)
    {
        preemption_points_ = on;
        refresh_check();
    }
    // Which queued task a CPU runs next (sim/schedule.h); none: the queue's
    // order, which fifo also gives.
    void set_strategy(schedule_strategy* s) { strategy_ = s; }
    // Who watches the run (sim/timed/observer.h), told in the order added;
    // none by default.
    void add_observer(sim_observer& o) { observers_.add(o); }
    void clear_observers() { observers_.clear(); }
    const observer_list<sim_observer>& observers() const { return observers_; }

    // --- tasks ------------------------------------------------------------
    // Creates a task, runnable at `at` on one of `allowed` CPUs.
    task& spawn(std::string name, std::vector<unsigned> allowed, std::function<void()> body,
                vtime at, bool kernel_thread = false);
    task& current() { return *current_task_; }
    bool in_task() const { return current_task_ != nullptr; }
    task& task_by_id(std::uint32_t id) { return *tasks_[id]; }
    std::size_t num_tasks() const { return tasks_.size(); }
    unsigned live_threads() const { return live_threads_; }
    // The current task's CPU (a running task does not move).
    unsigned cpu() const { return static_cast<unsigned>(current_task_->cpu); }
    bool cpu_idle(unsigned c) const { return cpus_[c].current < 0 && cpus_[c].runqueue.empty(); }
    // The id of the task running on CPU `c`, -1 when none (for the progress
    // detectors' messages, sim/timed/progress_watch.h).
    int cpu_current(unsigned c) const { return cpus_[c].current; }

    // Advance the current task's clock; yields when past the lookahead.
    // One compare: slow_check_at_ is as low as it goes while check_every_charge() holds.
    void charge(vtime ns)
    {
        now_ += ns;
        if (now_ >= slow_check_at_) [[unlikely]]
            charge_slow();
    }
    // Let every event before the task's clock happen first (before touching
    // state that pending events change, such as a contended line). Those
    // that resume no task run on the task's stack, and it runs on without a
    // switch if no other task comes first (leave()).
    void sync();
    // Sleep: the task leaves its CPU until wake().
    void block();
    // Busy-wait until end_spin() (a spinlock's spin on a line): the caller
    // registers the task with whoever will end it after spin_prepare(),
    // re-checks, then spin_wait()s; an end_spin() in between makes
    // spin_wait() return at once. The task keeps its CPU.
    void spin_prepare();
    void spin_wait();
    // The spin of `t` ends: it runs on at `at` (or, if still checking, its
    // spin_wait() returns at once).
    void end_spin(task& t, vtime at);
    // Make a blocked task runnable at `at` (>= now).
    void wake(task& t, vtime at);
    // Wake `t` at `at` unless it was woken since; sets t.timed_out if so.
    void wake_on_timeout(task& t, vtime at);
    // The running task stops, keeping its CPU, until a source resume()s it
    // (a cache-line access waiting for its service). When its resumption is
    // the loop's next event anyway, it runs on without leaving its fiber.
    void suspend();
    // The suspended task `t` runs on at `at`.
    void resume(task& t, vtime at);
    // The running task enters or leaves the kernel (system calls; RCU sees
    // the mode at ticks).
    void set_mode(task_mode m)
    {
        task& t = current();
        t.user_returns += m == task_mode::user;
        t.mode = m;
    }

    // Unwinds every task that has not exited (their guards' destructors run
    // with no cost and no switches). Call before destroying what tasks use.
    void shutdown();
    bool tearing_down() const { return tearing_down_; }

    // --- the loop ---------------------------------------------------------
    // Runs until `until` or until no task is left that can run, or, once
    // `*flag` is set (SIGINT), returns before the next event with now()
    // where the run got to and interrupted() true. Nothing in the model can
    // see the flag, so a run that is not interrupted is unchanged by it.
    void run_until(vtime until);
    void set_interrupt(const std::atomic<bool>* flag) { interrupt_ = flag; }
    bool interrupted() const { return interrupted_; }
    // As the flag does, from inside the run: run_until() returns before the
    // next event (--fail-on-warning, at a detector's first warning).
    void request_stop() { stop_requested_ = true; }

    // Counters for the run report.
    std::uint64_t events_processed() const { return events_; }
    // Events so far by where they came from: 0 task resumptions, 1 ticks,
    // 2 timeouts, then 3 + n for source n (the event-storm alarm's busiest
    // source). A count, never read by the run itself.
    const std::vector<std::uint64_t>& events_by_origin() const { return events_by_origin_; }
    // The name of origin `i` in events_by_origin().
    std::string origin_name(std::size_t i) const;
    std::uint64_t trace_hash() const { return trace_hash_; }
    void mix_trace(std::uint64_t v);

private:
    // What an event does when the loop takes it: resume a task (its turn
    // on its CPU, the end of a service it waited for), the timer tick of
    // every CPU, a sleep's timeout, or a source's own event (post()).
    enum class ev_kind : std::uint8_t { resume, tick, timeout, source };
    // Ordered by time, then by when it was queued (seq), so that events at
    // the same time happen in the order they were made.
    struct event {
        vtime t;
        std::uint64_t seq;
        ev_kind kind;
        std::uint8_t source;       // source: which (add_source()'s number)
        std::uint8_t source_what;  // source: the source's own kind of event
        std::uint32_t arg;         // resume, timeout: the task's id; source: the source's argument
        std::uint32_t task_gen;    // resume, timeout: task::gen when queued; stale once it moved on
        bool operator>(const event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
    };
    struct event_before {
        bool operator()(const event& a, const event& b) const { return b > a; }
    };

    // Queue an event of each kind.
    void push_resume(vtime at, const task& t) { enqueue({at, 0, ev_kind::resume, 0, 0, t.id, t.gen}); }
    void push_timeout(vtime at, const task& t) { enqueue({at, 0, ev_kind::timeout, 0, 0, t.id, t.gen}); }
    void push_tick(vtime at) { enqueue({at, 0, ev_kind::tick, 0, 0, 0, 0}); }
    void push_source(vtime at, std::uint8_t source, std::uint8_t what, std::uint32_t arg)
    {
        enqueue({at, 0, ev_kind::source, source, what, arg, 0});
    }
    // `ev` with the next sequence number.
    void enqueue(const event& ev);
    bool sources_idle() const;
    // Whether an event at `t` queued now would be the loop's next.
    bool next_event_at(vtime t) const
    {
        return t <= until_ && (queue_.empty() || queue_.top().t > t) && !interrupt_pending();
    }
    bool interrupt_pending() const
    {
        return stop_requested_ || (interrupt_ && interrupt_->load(std::memory_order_relaxed));
    }
    void count_event(ev_kind k, std::uint8_t source)
    {
        ++events_;
        ++events_by_origin_[k == ev_kind::source ? 3u + source : static_cast<unsigned>(k)];
    }
    // A resumption that is not stale: the task still waits for it.
    static bool resumable(const event& ev, const task& t)
    {
        return ev.task_gen == t.gen && t.state != task_state::exited && t.state != task_state::blocked &&
               t.state != task_state::runnable;
    }
    bool loop_stops() const;
    bool only_tick_left() const;
    // sync()'s resumption of the running task is held (own_resume_) while
    // the loop runs on its stack: next when it comes before the queue's top.
    bool own_resume_next() const
    {
        return own_resume_held_ && (queue_.empty() || event_before{}(own_resume_, queue_.top()));
    }
    // Into the queue with the sequence number it was made with, as if it had
    // been queued then: before another task runs, or the loop's own fiber
    // takes over.
    void queue_own_resume()
    {
        if (!own_resume_held_)
            return;
        own_resume_held_ = false;
        const event& e = own_resume_;
        queue_.emplace(e.t, e.seq, e.kind, e.source, e.source_what, e.arg, e.task_gen);
    }
    void leave();
    void enter(task& t);
    // The fiber a switch handed over, kept in the place of whoever made the
    // switch (switched_from_): a task's, or the loop's.
    void keep_switcher_fiber(boost::context::fiber&& from);
    event take();
    void process(const event& ev);  // one event, as the loop takes it
    void charge_slow();
    // Whether charge() must look at the task after every step: a CPU wants
    // a reschedule, a source wants preemption points, or the run is being
    // torn down.
    bool check_every_charge() const { return resched_flags_ != 0 || preemption_points_ || tearing_down_; }
    void set_run_ahead_until(vtime h)
    {
        run_ahead_until_ = h;
        refresh_check();
    }
    // Where charge() next looks closer: the tick or the end of the run-ahead, or at once
    // while check_every_charge() holds. Called whenever any of them changes.
    void refresh_check()
    {
        slow_check_at_ =
            check_every_charge() ? std::numeric_limits<vtime>::min() : std::min(next_tick_, run_ahead_until_ + 1);
    }
    void set_resched_flags(unsigned n)
    {
        resched_flags_ = n;
        refresh_check();
    }
    void switch_to(task& t);
    void yield_to_engine();
    void place(task& t, vtime at);
    int place_new(const task& t);
    bool pull_task(unsigned cpu);
    void dispatch(unsigned cpu, vtime at);
    void on_tick(std::int64_t k);
    // `t`: the task running on `cpu` at the tick; nullptr when idle.
    void sample_tick(unsigned cpu, std::int64_t k, const task* t);
    bool task_quiescent(const task& t) const;
    void maybe_preempt();
    void finish_task();
    void note_context_switch(unsigned cpu);
    void note_cpu_leave(const task& t)
    {
        if (!observers_.empty()) [[unlikely]]
            observers_.notify([&](sim_observer& o) { o.cpu_leave(static_cast<unsigned>(t.cpu), t, now_); });
    }

    machine machine_;
    engine_config cfg_;
    rng64 jitter_rng_;
    rng64 placement_rng_;  // select_idle_cpu(): which of the equally good idle CPUs
    vtime next_tick_ = 0;   // the running task's next tick boundary
    vtime slow_check_at_ = 0;  // charge() looks closer from here (refresh_check())
    unsigned resched_flags_ = 0;  // CPUs with need_resched or urgent_resched set
    vtime tick_ns_;
    vtime tick_irq_ns_;  // machine().tick_irq_ns
    vtime now_ = 0;
    // The running task runs ahead of the queue without syncing up to here:
    // the queue's next event plus engine_config::lookahead_ns when it was
    // entered, pulled in by anything it queues sooner (enqueue()).
    vtime run_ahead_until_ = 0;
    vtime until_ = 0;  // run_until()'s bound
    std::uint64_t seq_ = 0;
    std::uint64_t events_ = 0;
    const std::atomic<bool>* interrupt_ = nullptr;
    bool interrupted_ = false;
    bool stop_requested_ = false;
    std::vector<std::uint64_t> events_by_origin_ = std::vector<std::uint64_t>(3);
    std::uint64_t trace_hash_ = 0xcbf29ce484222325ull;
    calendar_queue<event, event_before> queue_;  // sim/timed/event_queue.h
    // The resumption sync() makes for the running task, kept out of the
    // queue while the loop runs on the task's stack (leave()): taken there
    // when it is the loop's next event, which it nearly always is once the
    // events before the task's clock have run, and queued only when another
    // task is resumed first or the loop stops. The same events in the same
    // order, one trip through the queue fewer per sync().
    event own_resume_{};
    bool own_resume_held_ = false;
    std::vector<std::unique_ptr<task>> tasks_;
    std::vector<vcpu> cpus_;
    std::vector<event_source*> sources_;
    bool preemption_points_ = false;  // a source wants them (want_preemption_points())
    task* current_task_ = nullptr;  // the running task; nullptr in the loop
    bool tearing_down_ = false;
    unsigned live_threads_ = 0;
    unsigned runnable_or_running_ = 0;
    boost::context::fiber engine_fiber_;
    task* switched_from_ = nullptr;  // who made the last switch: a task, nullptr the loop
    std::exception_ptr task_error_;
    schedule_strategy* strategy_ = nullptr;
    observer_list<sim_observer> observers_;
};

}  // namespace futexsim::sim
