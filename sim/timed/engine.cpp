// The engine's event loop: virtual time, the typed event queue, the tasks' fibers
// and the hand-offs between them, ticks and the event sources. Which CPU a
// task runs on, and when it leaves one, is cpu_scheduler.cpp's.
#include "sim/timed/engine.h"

#include "sim/kernel/task_fiber.h"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <utility>

#include <boost/context/fixedsize_stack.hpp>

namespace futexsim::sim {

namespace ctx = boost::context;

engine::engine(const machine& m, std::uint64_t seed, engine_config cfg)
    : machine_(m), cfg_(cfg), jitter_rng_(stream_seed(seed, streams::jitter)),
      placement_rng_(stream_seed(seed, streams::placement)), tick_ns_(1'000'000'000 / std::max(1u, m.hz)),
      tick_irq_ns_(static_cast<vtime>(m.tick_irq_ns)), cpus_(m.num_cpus())
{
    if (m.num_cpus() == 0)
        throw std::invalid_argument("machine has no CPUs");
    push_tick(tick_ns_);
}

engine::~engine() { shutdown(); }

void engine::shutdown()
{
    if (tearing_down_)
        return;
    tearing_down_ = true;
    refresh_check();
    for (auto& t : tasks_) {
        if (!t->fib)
            continue;
        current_task_ = t.get();
        // The loop's side destroys it: a fiber that never ran is entered to
        // be unwound under ucontext (the ASan build), and adopts this side.
        switched_from_ = nullptr;
        t->fib = {};  // forced unwind inside the fiber
        current_task_ = nullptr;
    }
}

void engine::mix_trace(std::uint64_t v)
{
    // FNV-1a over 64-bit values: order-sensitive, cheap.
    trace_hash_ = (trace_hash_ ^ v) * 0x100000001b3ull;
}

void engine::enqueue(const event& ev)
{
    queue_.emplace(ev.t, seq_++, ev.kind, ev.source, ev.source_what, ev.arg, ev.task_gen);
    // A task running ahead must not pass what it just made happen.
    if (current_task_ && ev.t + cfg_.lookahead_ns < run_ahead_until_)
        set_run_ahead_until(ev.t + cfg_.lookahead_ns);
}

std::uint8_t engine::add_source(event_source* s)
{
    if (sources_.size() >= 255)
        throw std::length_error("engine: too many event sources");
    sources_.push_back(s);
    events_by_origin_.push_back(0);
    return static_cast<std::uint8_t>(sources_.size() - 1);
}

void engine::post(std::uint8_t source, vtime at, std::uint8_t what, std::uint32_t arg)
{
    push_source(at, source, what, arg);
}

std::string engine::origin_name(std::size_t i) const
{
    static const char* const own[] = {"task resumptions", "ticks", "timeouts"};
    return i < 3 ? own[i] : sources_.at(i - 3)->name();
}

bool engine::sources_idle() const
{
    for (const event_source* s : sources_)
        if (!s->idle())
            return false;
    return true;
}

task& engine::spawn(std::string name, std::vector<unsigned> allowed, std::function<void()> body,
                    vtime at, bool kernel_thread)
{
    if (allowed.empty())
        throw std::invalid_argument("spawn: empty CPU affinity");
    auto t = std::make_unique<task>();
    t->id = static_cast<std::uint32_t>(tasks_.size());
    t->name = std::move(name);
    t->allowed = std::move(allowed);
    t->kernel_thread = kernel_thread;
    t->body = std::move(body);
    t->state = task_state::blocked;
    task& ref = *t;
    ref.fib = ctx::fiber(std::allocator_arg, ctx::fixedsize_stack(cfg_.stack_bytes),
                         kernel::task_fiber_main(engine_fiber_, tearing_down_, ref.body, task_error_,
                                                 [this](ctx::fiber&& from) { keep_switcher_fiber(std::move(from)); },
                                                 [this] { finish_task(); }));
    tasks_.push_back(std::move(t));
    if (!kernel_thread)
        ++live_threads_;
    wake(ref, at);
    return ref;
}

void engine::finish_task()
{
    task& t = current();
    switched_from_ = &t;  // the engine keeps what is left of the fiber
    t.state = task_state::exited;
    if (!t.kernel_thread)
        --live_threads_;
    vcpu& c = cpus_[static_cast<std::size_t>(t.cpu)];
    c.current = -1;
    note_cpu_leave(t);
    note_context_switch(static_cast<unsigned>(t.cpu));
    dispatch(static_cast<unsigned>(t.cpu), now_);
}

void engine::note_context_switch(unsigned cpu)
{
    for (event_source* s : sources_)
        s->context_switch(cpu, now_);
}

// Every switch names who makes it (switched_from_); the side that runs next
// keeps the continuation it receives in that one's place. Tasks switch to
// each other as well as to and from the loop (leave()), so the fiber the
// loop gets back is not always the one it resumed.
void engine::keep_switcher_fiber(ctx::fiber&& from)
{
    if (switched_from_)
        switched_from_->fib = std::move(from);
    else
        engine_fiber_ = std::move(from);
}

// The current task gives the CPU back to the engine loop.
void engine::yield_to_engine()
{
    switched_from_ = current_task_;
    keep_switcher_fiber(std::move(engine_fiber_).resume());
}

// What the loop does as it resumes `t`, before the switch.
void engine::enter(task& t)
{
    current_task_ = &t;
    t.state = task_state::running;
    next_tick_ = (now_ / tick_ns_ + 1) * tick_ns_;
    set_run_ahead_until((queue_.empty() ? now_ : std::max(now_, queue_.top().t)) + cfg_.lookahead_ns);
}

void engine::switch_to(task& t)
{
    enter(t);
    switched_from_ = nullptr;
    keep_switcher_fiber(std::move(t.fib).resume());
    current_task_ = nullptr;
    if (task_error_) {
        auto e = task_error_;
        task_error_ = nullptr;
        std::rethrow_exception(e);
    }
}

void engine::charge_slow()
{
    if (tearing_down_)
        return;
    task& t = current();
    vcpu& c = cpus_[static_cast<std::size_t>(t.cpu)];
    if (now_ >= next_tick_) {
        // A tick crossed while this task ran: record what it was doing then.
        const std::int64_t k = now_ / tick_ns_;
        next_tick_ = (k + 1) * tick_ns_;
        refresh_check();
        if (k > c.sampled_tick) {
            sample_tick(static_cast<unsigned>(t.cpu), k, &t);
            // The tick's interrupt handler runs before the task goes on.
            // Only a task executing when the tick fires pays it here; one
            // stalled on a line transfer or spinning (on_tick() samples
            // its CPU) does not: docs/simulator.md, "The tick's interrupt".
            now_ += tick_irq_ns_;
        }
    }
    if (preemption_points_ && !t.in_section()) [[unlikely]]
        for (event_source* s : sources_)
            s->preemption_point(static_cast<unsigned>(t.cpu), now_);
    // Preemption points: a softirq runs wherever interrupts are taken outside
    // a read-side section or non-preemptible region; a time-slice switch of
    // a kernel-mode task waits for the return to user unless the kernel is
    // fully preemptible (preempt=full).
    const bool preemptible = !t.in_section() &&
                             (t.mode == task_mode::user || machine_.preempt_full || c.urgent_resched);
    if ((c.need_resched || c.urgent_resched) && preemptible && !c.runqueue.empty()) [[unlikely]] {
        // Preempted: back of the queue (a softirq task went to the front).
        if (c.need_resched || c.urgent_resched)
            set_resched_flags(resched_flags_ - 1);
        c.need_resched = c.urgent_resched = false;
        t.state = task_state::runnable;
        c.runqueue.push_back(t.id);
        c.current = -1;
        note_cpu_leave(t);
        note_context_switch(static_cast<unsigned>(t.cpu));
        dispatch(static_cast<unsigned>(t.cpu), now_ + static_cast<vtime>(machine_.context_switch_ns));
        leave();
        return;
    }
    if (now_ > run_ahead_until_) [[unlikely]] {
        push_resume(now_, t);
        leave();
    }
}

void engine::sync()
{
    if (tearing_down_ || queue_.empty() || queue_.top().t >= now_)
        return;
    task& t = current();
    if (cfg_.fast_paths) {
        // Its number taken now, as enqueue() would: leave() holds it
        // (own_resume_). No run-ahead to pull in: the task runs next only
        // after enter(), which sets it.
        own_resume_ = {now_, seq_++, ev_kind::resume, 0, 0, t.id, t.gen};
        own_resume_held_ = true;
    } else {
        push_resume(now_, t);
    }
    leave();
}

// rcu_sched_clock_irq(): a tick in user mode is a quiescent state; with
// PREEMPT_RCU (rcu_flavor_sched_clock_irq()) so is one in the kernel outside
// any read-side section and with preemption enabled (no QS while
// preempt_count() has PREEMPT_MASK bits: futex_ref_get()/put()'s
// guard(preempt)(), a held spinlock).
bool engine::task_quiescent(const task& t) const
{
    if (t.mode == task_mode::user && !t.kernel_thread)
        return true;
    return machine_.rcu_preemptible && !t.in_section();
}

void engine::sample_tick(unsigned cpu, std::int64_t k, const task* t)
{
    cpus_[cpu].sampled_tick = k;
    const bool quiescent = t && task_quiescent(*t);
    for (event_source* s : sources_) {
        if (quiescent)
            s->tick_quiescent(cpu, k * tick_ns_);
        s->tick_sample(cpu, k * tick_ns_, t);
    }
}

void engine::spin_prepare()
{
    current().wake_pending = false;
}

void engine::spin_wait()
{
    if (tearing_down_)
        return;
    task& t = current();
    if (t.wake_pending) {  // ended since spin_prepare()
        t.wake_pending = false;
        return;
    }
    t.state = task_state::spinning;  // keeps its CPU busy: no context switch
    leave();
}

void engine::end_spin(task& t, vtime at)
{
    if (t.state != task_state::spinning) {  // still checking: see spin_wait()
        t.wake_pending = true;
        return;
    }
    t.state = task_state::running;
    push_resume(at, t);
}

void engine::post_now(std::uint8_t source, std::uint8_t what, std::uint32_t arg)
{
    if (!cfg_.fast_paths || !next_event_at(now_)) {
        post(source, now_, what, arg);
        return;
    }
    // As the loop would run it: counted, and with no task current.
    count_event(ev_kind::source, source);
    task* const running = std::exchange(current_task_, nullptr);
    sources_[source]->on_event(what, arg);
    current_task_ = running;
}

// Whether the loop stops before its next event: the end of the run, an
// interrupt, or nothing but the tick left (checked, as the loop does, after
// every event).
bool engine::loop_stops() const
{
    if (own_resume_next())
        return own_resume_.t > until_ || interrupt_pending();
    // A held resumption is a second event: not only the tick left.
    return queue_.empty() || queue_.top().t > until_ || interrupt_pending() ||
           (!own_resume_held_ && only_tick_left());
}

// Nothing but the tick left: every task has exited or sleeps forever.
bool engine::only_tick_left() const
{
    return queue_.size() == 1 && queue_.top().kind == ev_kind::tick && live_threads_ == 0 && sources_idle();
}

// The running task stops running (it waits for a service, sleeps, spins, was
// preempted or has queued its resumption behind earlier events). As a fast
// path the loop goes on here, on its stack, as it would on its own: events
// that resume no task run here, and the first task to resume is switched to
// directly, or, if it is this one, runs on without a switch. The engine's
// own loop takes over only where the run stops.
void engine::leave()
{
    if (!cfg_.fast_paths) {
        yield_to_engine();
        return;
    }
    task* const self = std::exchange(current_task_, nullptr);
    while (!loop_stops()) {
        if (own_resume_next()) {  // as take() and the resumption below would
            own_resume_held_ = false;
            now_ = own_resume_.t;
            count_event(ev_kind::resume, 0);
            if (!resumable(own_resume_, *self))
                continue;
            enter(*self);
            return;
        }
        const event ev = take();
        if (ev.kind != ev_kind::resume) {
            process(ev);
            continue;
        }
        task& t = *tasks_[ev.arg];
        if (!resumable(ev, t))
            continue;
        queue_own_resume();  // before enter(), which reads the queue's top
        enter(t);
        if (&t == self)
            return;
        switched_from_ = self;
        keep_switcher_fiber(std::move(t.fib).resume());
        return;  // resumed: whoever switched here has entered this task
    }
    queue_own_resume();
    current_task_ = self;
    yield_to_engine();
}

void engine::suspend()
{
    leave();
}

void engine::resume(task& t, vtime at)
{
    push_resume(at, t);
}

void engine::on_tick(std::int64_t k)
{
    for (unsigned cpu = 0; cpu < cpus_.size(); cpu++) {
        vcpu& c = cpus_[cpu];
        // An idle CPU has no tick (NOHZ): RCU finds it in the FQS scan.
        if (c.sampled_tick < k)
            sample_tick(cpu, k, c.current >= 0 ? tasks_[static_cast<std::size_t>(c.current)].get() : nullptr);
        if (c.current >= 0 && !c.runqueue.empty() && now_ - c.slice_start >= cfg_.sched_slice_ns) {
            if (!c.need_resched && !c.urgent_resched)
                set_resched_flags(resched_flags_ + 1);
            c.need_resched = true;
        }
    }
    for (event_source* s : sources_)
        s->tick(k);
    push_tick((k + 1) * tick_ns_);
}

// The loop's next event leaves the queue; time moves to it.
engine::event engine::take()
{
    const event ev = queue_.top();
    queue_.pop();
    now_ = ev.t;
    count_event(ev.kind, ev.source);
    return ev;
}

void engine::process(const event& ev)
{
    switch (ev.kind) {
    case ev_kind::resume: {
        task& t = *tasks_[ev.arg];
        if (resumable(ev, t))
            switch_to(t);
        break;
    }
    case ev_kind::tick:
        on_tick(ev.t / tick_ns_);
        break;
    case ev_kind::source:
        sources_[ev.source]->on_event(ev.source_what, ev.arg);
        break;
    case ev_kind::timeout: {
        task& t = *tasks_[ev.arg];
        if (ev.task_gen != t.gen || t.state != task_state::blocked)
            break;
        wake(t, now_);
        t.timed_out = true;
        break;
    }
    }
}

void engine::run_until(vtime until)
{
    until_ = until;
    while (!queue_.empty()) {
        if (interrupt_pending()) {
            interrupted_ = true;
            return;  // now() stays where the run got to
        }
        if (queue_.top().t > until)
            break;
        process(take());
        if (only_tick_left())
            break;
    }
    now_ = std::max(now_, until);
}

}  // namespace futexsim::sim
