// The kernel's progress detectors, on the simulated machine and in virtual
// time: a run that stops making progress says so in its warnings instead of
// printing a result that looks like any other.
//
// - rcu-stall (kernel/rcu/tree_stall.h): a grace period older than
//   rcu_stall_timeout_ms; names the CPUs that have not reported a
//   quiescent state and the task each runs. Once per grace period.
// - soft-lockup (kernel/watchdog.c): a busy CPU that has not scheduled for
//   2 x watchdog_thresh_ms: no context switch, and at every tick the same
//   task, in the kernel since the tick before and inside a section with
//   preemption off (a spinlock held or spun on, preempt_disable(), a
//   read-side section where RCU is not preemptible), so the watchdog's
//   stopper task could not have run. Once per CPU per lockup.
// - spin-lockup: a task trying to take one spinlock for longer than
//   spin_limit_ms; names the holder. Once per task per spin.
// - event-storm: the engine processed more than max_events_per_ms events
//   per virtual millisecond over a tick; names the busiest origin. Once per
//   run.
//
// The kernel's defaults are for machines that run for days: a 21 s stall
// timeout, watchdog_thresh 10 s. Simulated runs last seconds, so each
// default here is the kernel's divided by 100 (210 ms, 100 ms); the spin
// bound is CONFIG_DEBUG_SPINLOCK's old "lockup suspected" second divided
// by 100 (10 ms). docs/simulator.md, "Progress detectors".
//
// It is an event source that posts nothing (sim/timed/event_source.h): it hears
// the engine's ticks and context switches and reads RCU's and the engine's
// state; it charges no time and draws no number, so a run watched prints
// the same as one not watched. With stop_at_first, its first warning stops
// the run (engine::request_stop()).
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/timed/engine.h"
#include "sim/timed/lockup_detector.h"
#include "sim/timed/rcu.h"

namespace futexsim::sim {

struct progress_limits {
    double rcu_stall_timeout_ms = 210;  // rcu_cpu_stall_timeout: 21 s / 100
    double watchdog_thresh_ms = 100;    // watchdog_thresh: 10 s / 100; soft lockup at twice this
    double spin_limit_ms = 10;          // one spin on one lock
    // Far above any healthy run's peak (docs/simulator.md gives the peaks
    // measured on the presets).
    double max_events_per_ms = 5e7;
    bool stop_at_first = false;  // --fail-on-warning
};

// The tags the warnings start with ("rcu-stall: ..."), in the order
// `report` counts them.
inline constexpr const char* progress_warning_kinds[] = {"rcu-stall", "soft-lockup", "spin-lockup", "event-storm"};

class progress_watch final : public event_source {
public:
    progress_watch(engine& e, rcu_sim& r, progress_limits limits);

    spin_watch& spins() { return spins_; }
    // Each kind's first max_per_kind warnings, then for each kind with more
    // "soft-lockup: N more like these" (192 CPUs locked up would otherwise
    // print 192 lines).
    std::vector<std::string> warnings() const;
    static constexpr unsigned max_per_kind = 8;
    // Whether the run was stopped at the first warning (stop_at_first).
    bool stopped() const { return stopped_; }

    const char* name() const override { return "the progress detectors"; }
    void context_switch(unsigned cpu, vtime at) override;
    void tick_sample(unsigned cpu, vtime at, const task* t) override;
    void tick(std::int64_t k) override;

private:
    void check_rcu();
    void check_cpus();
    void check_spins();
    void check_events();
    enum kind : unsigned { rcu_stall, soft_lockup, spin_lockup, event_storm };  // progress_warning_kinds' order
    void warn(kind k, std::string text);
    std::string task_label(long id) const;

    engine& eng_;
    rcu_sim& rcu_;
    const progress_limits limits_;
    const vtime stall_ns_, lockup_ns_, spin_ns_;
    spin_watch spins_;
    std::vector<std::string> warnings_;
    unsigned shown_[4] = {};
    std::uint64_t more_[4] = {};
    bool stopped_ = false;
    // rcu-stall: the grace period (by its start) last warned of.
    vtime warned_gp_ = -1;
    // soft-lockup: per CPU, when it last scheduled, and whether this
    // lockup was reported.
    std::vector<vtime> last_sched_;
    std::vector<bool> lockup_warned_;
    struct cpu_sample {
        std::uint32_t task = UINT32_MAX;  // none
        std::uint64_t user_returns = 0;
    };
    std::vector<cpu_sample> samples_;  // per CPU, at its last tick
    // spin-lockup: per task, the spin (by its start) last warned of.
    std::vector<vtime> spin_warned_;
    // event-storm: the previous tick's clock and counts.
    vtime last_tick_at_ = 0;
    std::vector<std::uint64_t> last_counts_;
    bool storm_warned_ = false;
};

}  // namespace futexsim::sim
