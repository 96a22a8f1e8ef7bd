#include "sim/timed/trace_writer.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "model/futex.h"
#include "sim/timed/engine.h"
#include "sim/timed/process.h"

namespace futexsim::sim {

namespace {
constexpr unsigned pid = 1;

const char* instant_name(model::trace_kind k)
{
    using model::trace_kind;
    switch (k) {
    case trace_kind::hash_allocate:
        return "pivot requested";
    case trace_kind::ref_drop:
        return "ref_drop";
    case trace_kind::atomic_begin:
        return "FR_ATOMIC";
    case trace_kind::atomic_end:
        return "fold";
    case trace_kind::ref_dead:
        return "dead";
    case trace_kind::phash_new_park:
        return "new hash parked";
    case trace_kind::pivot_install:
        return "installed";
    default:
        return nullptr;  // the per-call ref_get tracepoints are counters' business
    }
}
}  // namespace

trace_writer::trace_writer(const std::string& path, sim_process& proc, vtime start, vtime end,
                           const std::string& process_name, std::uint64_t max_bytes)
    : path_(path), proc_(proc), start_(start), end_(end), max_bytes_(max_bytes),
      ncpus_(proc.eng().mach().num_cpus()), tracks_(ncpus_), named_(ncpus_ + 2, false)
{
    f_ = std::fopen(path.c_str(), "w");
    if (!f_)
        throw std::invalid_argument("--trace '" + path + "': cannot write: " + std::strerror(errno));
    fmt::format_to(std::back_inserter(buf_), "{{\"traceEvents\":[\n");
    fmt::format_to(std::back_inserter(buf_),
                   "{{\"ph\":\"M\",\"name\":\"process_name\",\"ts\":0,\"pid\":{},\"tid\":0,\"args\":{{\"name\":{}}}}}",
                   pid, nlohmann::json(process_name).dump());
    first_ = false;
}

trace_writer::~trace_writer()
{
    if (f_)
        std::fclose(f_);
}

// Timestamps in microseconds, to the nanosecond.
void trace_writer::ts(vtime t)
{
    fmt::format_to(std::back_inserter(buf_), "{}.{:03}", t / 1000, t % 1000);
}

void trace_writer::flush(bool all)
{
    if (!all && buf_.size() < (1u << 20))
        return;
    std::fwrite(buf_.data(), 1, buf_.size(), f_);
    written_ += buf_.size();
    buf_.clear();
}

void trace_writer::begin_event(char ph, unsigned tid, vtime t)
{
    flush(false);
    // At the cap the window closes here: later events fall outside it, and
    // the slices still open are cut at this time (pop(), finish()).
    if (max_bytes_ && ph != 'M' && capped_at_ < 0 && written_ + buf_.size() >= max_bytes_) {
        capped_at_ = t;
        end_ = std::min(end_, t);
    }
    fmt::format_to(std::back_inserter(buf_), "{}{{\"ph\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":", first_ ? "" : ",\n",
                   ph, pid, tid);
    first_ = false;
    ts(t);
}

void trace_writer::name_track(unsigned tid, const std::string& name)
{
    if (named_[tid])
        return;
    named_[tid] = true;
    begin_event('M', tid, 0);
    fmt::format_to(std::back_inserter(buf_), ",\"name\":\"thread_name\",\"args\":{{\"name\":\"{}\"}}}}", name);
    begin_event('M', tid, 0);
    fmt::format_to(std::back_inserter(buf_), ",\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{}}}}}", tid);
}

const std::string& trace_writer::task_name(std::uint32_t id)
{
    while (task_names_.size() <= id)
        task_names_.push_back(
            nlohmann::json(proc_.eng().task_by_id(static_cast<std::uint32_t>(task_names_.size())).name).dump());
    return task_names_[id];
}

// Writes the opening of every task slice on `cpu` not yet written, cut at
// the window's start.
void trace_writer::open_all(unsigned cpu)
{
    for (frame& f : tracks_[cpu]) {
        if (f.written)
            continue;
        f.written = true;
        name_track(cpu, fmt::format("CPU {}", cpu));
        begin_event('B', cpu, std::max(f.start, start_));
        fmt::format_to(std::back_inserter(buf_), ",\"name\":{},\"args\":{{\"task\":{}}}}}",
                       task_name(f.task_id), f.task_id);
    }
}

void trace_writer::push(unsigned cpu, std::uint32_t task_id, vtime at)
{
    if (finished_)
        return;
    tracks_[cpu].push_back(frame{task_id, at, false});
    if (in_window(at))
        open_all(cpu);
}

void trace_writer::pop(unsigned cpu, vtime at)
{
    if (finished_ || tracks_[cpu].empty())
        return;
    const frame f = tracks_[cpu].back();
    if (f.start <= end_ && at >= start_) {
        open_all(cpu);
        begin_event('E', cpu, std::min(at, end_));
        buf_.push_back('}');
    }
    tracks_[cpu].pop_back();
}

trace_writer::open_call& trace_writer::call_of(const task& t)
{
    if (calls_.size() <= t.id)
        calls_.resize(t.id + 1);
    return calls_[t.id];
}

// One piece of a system call, [c.start, at] on `cpu`, inside the task's slice.
void trace_writer::call_piece(unsigned cpu, const open_call& c, vtime at)
{
    if (finished_ || c.start > end_ || at < start_)
        return;
    open_all(cpu);
    const vtime from = std::max(c.start, start_);
    begin_event('X', cpu, from);
    buf_.append(std::string_view(",\"dur\":"));
    ts(std::min(at, end_) - from);
    fmt::format_to(std::back_inserter(buf_), ",\"name\":\"{}\"}}", c.name);
}

void trace_writer::cpu_enter(unsigned cpu, const task& t, vtime at)
{
    push(cpu, t.id, at);
    if (open_call& c = call_of(t); c.name)  // back in the call it blocked in
        c.start = at;
}

void trace_writer::cpu_leave(unsigned cpu, const task& t, vtime at)
{
    if (const open_call& c = call_of(t); c.name)
        call_piece(cpu, c, at);
    pop(cpu, at);
}

void trace_writer::syscall_enter(const task& t, const char* name, vtime at)
{
    call_of(t) = open_call{name, at};
    sample(at, false);
}

void trace_writer::syscall_exit(const task& t, vtime at)
{
    if (open_call& c = call_of(t); c.name) {
        call_piece(static_cast<unsigned>(t.cpu), c, at);
        c.name = nullptr;
    }
    sample(at, false);
}

void trace_writer::instant(unsigned tid, const char* name, vtime at, const std::string& args)
{
    if (finished_ || !in_window(at))
        return;
    name_track(tid, tid == ncpus_ ? "futex pivot" : "RCU");
    begin_event('i', tid, at);
    fmt::format_to(std::back_inserter(buf_), ",\"s\":\"t\",\"name\":\"{}\",\"args\":{{{}}}}}", name, args);
}

void trace_writer::tracepoint(const model::trace_point& tp, vtime at)
{
    const char* name = instant_name(tp.kind);
    if (!name) {
        sample(at, false);
        return;
    }
    instant(ncpus_, name, at, fmt::format("\"slots\":{},\"value\":{}", tp.slots, tp.value));
    sample(at, true);
}

// The fold zeroes the per-CPU counters one by one before its add lands on
// futex_atomic: no samples while an RCU callback runs, one when it is done.
void trace_writer::rcu_callback(bool running, vtime at)
{
    rcu_callbacks_running_ += running ? 1 : -1;
    if (!running)
        sample(at, true);
}

void trace_writer::gp_end(unsigned long completed, vtime at)
{
    instant(ncpus_ + 1, "grace period end", at, fmt::format("\"gp\":{}", completed));
}

// The counters, read straight from the model's memory (no simulated access):
// futex_atomic less the bias while it carries one (and whether it does),
// the sum of the per-CPU futex_ref, and the references held, which is
// count + sum - 1 (the hash's initial reference) in every state outside a
// fold: the per-CPU side counts the gets and puts made in FR_PERCPU, the
// atomic those made in FR_ATOMIC, and the fold moves one into the other.
void trace_writer::sample(vtime at, bool force)
{
    if (finished_ || rcu_callbacks_running_ > 0 || !in_window(at) || (sampled_ && at < last_sample_))
        return;
    if (sampled_ && !force && at - last_sample_ < counter_interval_ns)
        return;
    const auto& mm = proc_.mm();
    const long raw = mm.futex_atomic.v;
    const bool biased = raw > LONG_MAX / 2 || raw < LONG_MIN / 2;
    const long count = biased ? static_cast<long>(static_cast<unsigned long>(raw) - static_cast<unsigned long>(model::futex_ref_bias))
                              : raw;
    long percpu = 0;
    if (mm.futex_ref)
        for (unsigned v : mm.futex_ref->v)
            percpu += v;
    const long held = mm.futex_ref ? count + percpu - 1 : 0;
    const bool all = !sampled_;
    if (all || count != last_count_ || (biased ? 1 : 0) != last_biased_) {
        name_track(ncpus_, "futex pivot");
        begin_event('C', ncpus_, at);
        fmt::format_to(std::back_inserter(buf_), ",\"name\":\"futex_atomic\",\"args\":{{\"count\":{},\"biased\":{}}}}}",
                       count, biased ? 1 : 0);
    }
    if (all || percpu != last_percpu_) {
        begin_event('C', ncpus_, at);
        fmt::format_to(std::back_inserter(buf_), ",\"name\":\"futex_ref per-CPU sum\",\"args\":{{\"sum\":{}}}}}", percpu);
    }
    if (all || held != last_held_) {
        begin_event('C', ncpus_, at);
        fmt::format_to(std::back_inserter(buf_), ",\"name\":\"references held\",\"args\":{{\"held\":{}}}}}", held);
    }
    sampled_ = true;
    last_sample_ = at;
    last_count_ = count;
    last_biased_ = biased ? 1 : 0;
    last_percpu_ = percpu;
    last_held_ = held;
}

void trace_writer::finish(vtime at)
{
    if (finished_)
        return;
    // What still runs: its call so far, then its slice.
    for (unsigned cpu = 0; cpu < ncpus_; cpu++) {
        if (!tracks_[cpu].empty())
            if (const open_call& c = call_of(proc_.eng().task_by_id(tracks_[cpu].back().task_id)); c.name)
                call_piece(cpu, c, at);
        while (!tracks_[cpu].empty())
            pop(cpu, at);
    }
    finished_ = true;
    fmt::format_to(std::back_inserter(buf_), "\n],\"displayTimeUnit\":\"ns\"}}\n");
    flush(true);
    const bool bad = std::ferror(f_) != 0;
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    if (bad || !closed)
        throw std::runtime_error("--trace '" + path_ + "': write failed");
}

}  // namespace futexsim::sim
