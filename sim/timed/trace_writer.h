// `futexsim run --trace FILE`: a simulated run as a Chrome / Perfetto
// trace-event JSON file (docs/tracing.md), written as the run goes. It
// observes (sim/timed/observer.h) and never changes what it watches.
//
// Tracks, all in process 1:
// - "CPU n" (tid n): which task runs on the vCPU (a B/E slice named by
//   the task) and, nested in it, the task's system calls (FUTEX_WAKE, ...;
//   X slices, written when they end); a call the task blocks in is cut
//   where it leaves the CPU and continues where it comes back;
// - "futex pivot" (tid = number of CPUs): instants for the model's pivot
//   tracepoints, and the counters (process-wide in the format);
// - "RCU" (tid = number of CPUs + 1): an instant at each grace period end.
// Only what falls within [start, end] is written; slices that cross an
// edge are cut there.
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/timed/observer.h"

namespace futexsim::sim {

class sim_process;

class trace_writer final : public sim_observer {
public:
    // Counters are sampled at most once per this much virtual time, and at
    // every pivot tracepoint.
    static constexpr vtime counter_interval_ns = 10'000;

    // Opens `path` and writes the header; throws std::invalid_argument
    // naming --trace if it cannot be written.
    // Once `max_bytes` (0: no cap) are written the window ends at the
    // event that reached it.
    trace_writer(const std::string& path, sim_process& proc, vtime start, vtime end,
                 const std::string& process_name, std::uint64_t max_bytes = 0);
    ~trace_writer() override;
    trace_writer(const trace_writer&) = delete;
    trace_writer& operator=(const trace_writer&) = delete;

    // Closes every open slice at min(at, end) and completes the file;
    // throws std::runtime_error if it could not be written.
    void finish(vtime at);

    // Where the size cap ended the trace, or -1 if it did not.
    vtime capped_at() const { return capped_at_; }

    void cpu_enter(unsigned cpu, const task& t, vtime at) override;
    void cpu_leave(unsigned cpu, const task& t, vtime at) override;
    void syscall_enter(const task& t, const char* name, vtime at) override;
    void syscall_exit(const task& t, vtime at) override;
    void tracepoint(const model::trace_point& tp, vtime at) override;
    void rcu_callback(bool running, vtime at) override;
    void gp_end(unsigned long completed, vtime at) override;

private:
    // A task's slice on a CPU track, opened (B) once it reaches the window.
    struct frame {
        std::uint32_t task_id;
        vtime start;
        bool written;
    };
    // The system call a task is in, and where its current piece began.
    struct open_call {
        const char* name = nullptr;
        vtime start = 0;
    };
    bool in_window(vtime t) const { return t >= start_ && t <= end_; }
    void push(unsigned cpu, std::uint32_t task_id, vtime at);
    void pop(unsigned cpu, vtime at);
    void call_piece(unsigned cpu, const open_call& c, vtime at);
    open_call& call_of(const task& t);
    void open_all(unsigned cpu);
    void name_track(unsigned tid, const std::string& name);
    void begin_event(char ph, unsigned tid, vtime ts);
    void instant(unsigned tid, const char* name, vtime at, const std::string& args);
    void sample(vtime at, bool force);
    void ts(vtime t);
    void flush(bool all);
    const std::string& task_name(std::uint32_t id);

    std::FILE* f_ = nullptr;
    std::string path_;
    sim_process& proc_;
    vtime start_, end_;
    std::uint64_t max_bytes_;
    std::uint64_t written_ = 0;  // bytes handed to f_ so far
    vtime capped_at_ = -1;
    unsigned ncpus_;
    fmt::memory_buffer buf_;
    bool first_ = true;
    bool finished_ = false;
    std::vector<std::vector<frame>> tracks_;  // per CPU
    std::vector<bool> named_;                 // per tid
    std::vector<open_call> calls_;            // per task
    std::deque<std::string> task_names_;      // per task, JSON-escaped
    int rcu_callbacks_running_ = 0;
    vtime last_sample_ = -1;
    bool sampled_ = false;
    long last_count_ = 0, last_biased_ = 0, last_percpu_ = 0, last_held_ = 0;
};

}  // namespace futexsim::sim
