// `futexsim probe --out FILE`: this machine measured into a machine file
// that `futexsim run --machine-file FILE` takes (docs/probe.md).
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/numbers.h"
#include "compare/calibration.h"
#include "machine/machine.h"
#include "probe/probe.h"
#include "run/stop_signal.h"
#include "run/workloads/workload.h"

namespace futexsim::cli {

namespace {

struct probe_args {
    probe::probe_options opt;
    std::string out;
};

// Opens `path` for appending (which creates it and truncates nothing), so
// that an unwritable --out is refused before anything is measured.
bool check_writable(const std::string& path)
{
    // A FIFO would block the open for ever, a device or directory fail
    // later: refused by their type, before anything is opened.
    check_output_path("--out", path);
    const bool existed = std::filesystem::exists(path);
    errno = 0;
    std::ofstream f(path, std::ios::app);
    if (!f || std::filesystem::is_directory(path))
        throw usage_error(fmt::format("--out '{}': cannot write{}", path,
                                      errno ? std::string(": ") + std::strerror(errno) : std::string()));
    return !existed;
}

int run_probe_command(const probe_args& a)
{
    const bool created = check_writable(a.out);
    probe::probe_result r =
        probe::run_probe(a.opt, nullptr, [] { return sigint_received().load(); });
    r.stopped_by = stop_signal_name();
    std::cout << probe::probe_table(r);
    if (r.interrupted || sigint_received()) {
        if (created)
            std::filesystem::remove(a.out);
        return interrupted_status;
    }
    probe::probed_machine pm = probe::machine_from_probe(r, load_machine_preset("host"));
    // Entry + exit and kernel_cpi: the split, through the simulator.
    const probe::summary& path = probe::futex_path(r.split);
    if (path.n > 0 && r.split.invalid_op.n > 0) {
        const compare::split_values v = compare::values_from_split(pm.m, r.split);
        const auto& d = v.cpi;
        pm.m.syscall_entry_ns = v.entry_exit_ns / 2;
        pm.m.syscall_exit_ns = v.entry_exit_ns / 2;
        pm.m.kernel_cpi = std::max(0.0, d.kernel_cpi);
        pm.sources["syscall_entry_ns"] = fmt::format(
            "measured: futexsim probe, half of a futex() call with an invalid op ({:.1f} ns, the median of {} rounds "
            "of {} calls, kernel {}) less the {} ns the model's wake loop spends in user mode",
            r.split.invalid_op.median, r.split.invalid_op.n, r.split.calls, r.split.kernel, wake_loop_user_ns);
        pm.sources["syscall_exit_ns"] = "measured: futexsim probe, as syscall_entry_ns";
        pm.sources["kernel_cpi"] = fmt::format(
            "measured: futexsim probe, the futex path of one FUTEX_WAKE_PRIVATE with nobody waiting ({:.1f} ns: "
            "the call less an invalid-op futex() call, paired per round, {} hash, kernel {}) over the model's "
            "{:.2f} ns per cycle per instruction (the instructions counted in the compiled 7.2.13 at {:.2f} GHz) "
            "after its fixed {:.1f} ns (two simulations){}",
            path.median, r.split.have_private_hash ? "private" : "global", r.split.kernel, d.ns_per_cpi,
            pm.m.core_ghz, d.fixed_ns, d.kernel_cpi < 0 ? "; the path measured is shorter than the fixed part, so 0" : "");
        // Not the split's entry+exit: that less the model's user loop, said so.
        std::cout << fmt::format(
            "entry+exit {:.1f} ns (the split's {:.1f} ns less the model's {} ns user loop); "
            "kernel_cpi {:.2f}: the model's FUTEX_WAKE is {:.1f} ns + entry/exit + {:.2f} ns per "
            "CPI; the path measured is {:.1f} ns\n",
            v.entry_exit_ns, r.split.invalid_op.median, wake_loop_user_ns, pm.m.kernel_cpi,
            d.fixed_ns, d.ns_per_cpi, path.median);
    }
    const std::string text = machine_file_json(pm.m, pm.shape, pm.sources);
    errno = 0;
    std::ofstream f(a.out, std::ios::trunc);
    f << text;
    f.close();
    if (!f)
        throw usage_error(fmt::format("--out '{}': cannot write{}", a.out,
                                      errno ? std::string(": ") + std::strerror(errno) : std::string()));
    print_line(fmt::format("wrote {} (futexsim run --machine-file {})", a.out, a.out));
    return 0;
}

}  // namespace

void register_probe(CLI::App& app)
{
    auto a = std::make_shared<probe_args>();
    CLI::App* sub = app.add_subcommand(
        "probe", "Measure this machine into a machine file for `run --machine-file`: the topology from sysfs, "
                 "one-way cache-line transfer latency per pair class (SMT sibling, same LLC, other LLC, other node, "
                 "other socket) by ping-pong between pinned threads, a locked RMW, what a load does to a line another "
                 "core wrote (modified_read), how long a line's holder keeps it once another core asks for it "
                 "(snoop_leg_fraction), and the system-call split "
                 "(entry + exit against the futex path), which gives the kernel's cycles per instruction (kernel_cpi)");
    sub->add_option("--out", a->out, "The machine file to write (JSON, docs/simulator.md)")->required();
    sub->add_option("--pairs", a->opt.pairs_per_class,
                    "CPU pairs measured per class at most, spread over the machine")
        ->transform(whole_number(1, 100000))
        ->capture_default_str();
    sub->add_option("--batches", a->opt.pingpong.batches, "Ping-pong batches per pair (the median is over them)")
        ->transform(whole_number(5, 100000))
        ->capture_default_str();
    sub->add_option("--round-trips", a->opt.pingpong.round_trips, "Round trips per ping-pong batch")
        ->transform(whole_number(10, 1000000))
        ->capture_default_str();
    sub->add_option("--syscall-rounds", a->opt.syscall_rounds,
                    "Rounds of the system-call split (each: one batch of every row)")
        ->transform(whole_number(11, 100000))
        ->capture_default_str();
    sub->footer("Prints: the system-call split's entry+exit and kernel_cpi, then 'wrote FILE'; the machine\n"
                "file holds the topology, each measured figure and its source. "
                "Takes a few seconds per pair class; run it on a quiet machine (docs/probe.md: the method and "
                "its error). SIGINT stops it with what was measured printed and no file written; exit status 130.");
    add_command(sub, [a] { return run_probe_command(*a); });
}

}  // namespace futexsim::cli
