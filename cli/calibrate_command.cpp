// `futexsim calibrate`: the host kernel measured next to the simulator's
// `host` preset, one row per figure, with the sim/real ratio.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/numbers.h"
#include "compare/calibration.h"
#include "machine/machine.h"
#include "real/limits.h"

namespace futexsim::cli {

void register_calibrate(CLI::App& app)
{
    auto opt = std::make_shared<compare::calibration_options>();
    CLI::App* sub = app.add_subcommand(
        "calibrate", "Measure this machine's kernel (kernel backend) and predict the same with the simulator's "
                     "host preset, side by side: slots after N threads, wake-nowaiters throughput, and how long "
                     "prctl(SET_SLOTS) blocks under N FUTEX_WAKE threads; then the system-call split");
    sub->add_option("--slot-threads", opt->slot_threads, "Thread counts for the slots rows")
        ->transform(whole_number(1, real::max_threads));
    sub->add_option("--wake-threads", opt->wake_threads, "Thread counts for the throughput rows")
        ->transform(whole_number(1, real::max_threads));
    sub->add_option("--stall-threads", opt->stall_threads, "Waker counts for the SET_SLOTS rows")
        ->transform(whole_number(1, real::max_threads));
    sub->add_option("--samples", opt->samples, "SET_SLOTS calls per row (median and p90 over them)")
        ->transform(whole_number(20, 1000))
        ->capture_default_str();
    sub->add_option("--seconds", opt->seconds, "Seconds per throughput run")
        ->transform(real_number(0.05, 10.0))
        ->capture_default_str();
    sub->footer("Prints: a table, one row per figure (what, unit, sim, real, sim/real, note): slots after N\n"
                "threads, wake-nowaiters throughput, SET_SLOTS blocking (median, p90); then one FUTEX_WAKE\n"
                "real against simulated and CONFIG_HZ, the suggested syscall entry+exit, and the system-call\n"
                "split (a futex() call with an invalid op against a FUTEX_WAKE with nobody waiting, the\n"
                "entry+exit and kernel_cpi derived from it against the host preset's).\n"
                "SIGINT ends it after the rows measured so far, which it prints; exit status 130.\n"
                "docs/calibration.md records this machine's table and what it taught the host preset.");
    add_command(sub, [opt] {
        const compare::calibration_report r = compare::calibrate(*opt, load_machine_preset("host"));
        std::cout << compare::calibration_table(r);
        return r.interrupted ? interrupted_status : 0;
    });
}

}  // namespace futexsim::cli
