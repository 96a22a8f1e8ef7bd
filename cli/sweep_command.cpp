// `futexsim sweep`: a grid of simulated runs, R seeds per cell, run as child
// processes (`futexsim run --json`) J at a time, one JSON line per run in
// --out. Resumable (runs already in --out are skipped), shardable
// (--shard K/N runs a deterministic 1/N of the runs), and SIGINT leaves a
// valid file. `futexsim report` turns the lines into tables.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include "cli/child_pool.h"
#include "cli/commands.h"
#include "cli/detector_flags.h"
#include "cli/input_file.h"
#include "cli/numbers.h"
#include "cli/stop_signals.h"
#include "cli/sweep_grid.h"
#include "cli/sweep_line.h"
#include "cli/sweep_results.h"
#include "cli/writer_lock.h"
#include "machine/machine.h"
#include "model/core.h"
#include "run/run_checks.h"
#include "run/stop_signal.h"
#include "run/workloads/registry.h"

namespace futexsim::cli {

namespace {

// Where the child's "the run warned" line starts in its stderr, or npos: at
// the start of any line, as a sanitizer may write a line of its own first.
std::size_t warned_line(const std::string& err)
{
    if (err.rfind(fail_on_warning_prefix, 0) == 0)
        return 0;
    const std::size_t at = err.find("\n" + std::string(fail_on_warning_prefix));
    return at == std::string::npos ? at : at + 1;
}

struct sweep_args {
    std::string machines = "xeon-6975p-snc3", machine_files, policies = "stock",
                workloads = "wake-nowaiters";
    std::string kernels = "v6.17", threads = "96", ramp_ms = "0", arms = "auto", cpus,
                prechecks = "off";
    sweep_grid grid;
    std::string out;
    unsigned jobs = 0;
    std::string shard = "1/1";
    detector_flags detectors;
    bool machine_given = false;  // --machine on the command line (with --machine-file: both run)
    bool large_grid = false;     // --large-grid: past max_sweep_runs
};

constexpr int interrupted_status = 130;

template <class T>
void refuse_duplicates(const std::string& flag, const std::vector<T>& values)
{
    for (std::size_t i = 0; i < values.size(); i++)
        for (std::size_t k = 0; k < i; k++)
            if (values[i] == values[k])
                throw usage_error(
                    fmt::format("{}: '{}' is given twice (its cells could not be told apart)", flag,
                                fmt::to_string(values[i])));
}

sweep_grid build_grid(const sweep_args& a)
{
    sweep_grid g = a.grid;
    g.detector_args = a.detectors.given_arguments();
    g.machines.clear();
    g.machine_hashes.clear();
    // A sweep over machine files runs the files; --machine's presets too
    // only when --machine is given (its default is for a sweep without files).
    if (!a.machines.empty() && (a.machine_given || a.machine_files.empty()))
        for (const auto& m : parse_name_list("--machine", a.machines)) {
            g.machines.push_back(m);
            g.machine_hashes.emplace_back();
        }
    if (!a.machine_files.empty())
        for (const auto& f : parse_name_list("--machine-file", a.machine_files)) {
            check_utf8_name("--machine-file", f);
            g.machines.push_back(machine_file_cell(f));
            g.machine_hashes.push_back(
                content_hash(read_input_file("--machine-file", f, max_machine_file_bytes)));
        }
    g.policies = parse_name_list("--policy", a.policies);
    g.workloads = parse_name_list("--workload", a.workloads);
    g.kernels = parse_name_list("--kernel", a.kernels);
    g.threads = parse_uint_grid("--threads", a.threads);
    g.ramp_ms = parse_number_grid("--ramp-ms", a.ramp_ms);
    g.arms = parse_arms(a.arms);
    g.cpus = a.cpus.empty() ? std::vector<std::string>{""} : parse_name_list("--cpus", a.cpus, ';');
    g.prechecks = parse_prechecks(a.prechecks);

    // A value twice makes two cells `report` cannot tell apart.
    refuse_duplicates("--machine/--machine-file", g.machines);
    refuse_duplicates("--policy", g.policies);
    refuse_duplicates("--workload", g.workloads);
    refuse_duplicates("--kernel", g.kernels);
    refuse_duplicates("--threads", g.threads);
    refuse_duplicates("--ramp-ms", g.ramp_ms);
    refuse_duplicates("--arms", g.arms);
    refuse_duplicates("--cpus", g.cpus);
    refuse_duplicates("--precheck", parse_name_list("--precheck", a.prechecks));

    // Names are checked here, once, rather than by the first child of each cell.
    for (const auto& p : g.policies)
        usage_checked([&] { return require_pivot_policy(p); });
    for (const auto& k : g.kernels)
        if (!model::parse_kernel_version(k))
            throw usage_error(fmt::format("--kernel: unknown kernel '{}' (valid: {})", k,
                                          model::kernel_version_names));
    for (const auto& w : g.workloads)
        find_workload(w);  // throws with the valid names
    for (const auto& m : g.machines) {
        const bool file = m.rfind("file:", 0) == 0;
        const machine mach =
            file ? read_machine_file("--machine-file", m.substr(5)) : load_machine_preset(m);
        // Two spellings of one set ('0-3' and '3,2,1,0') would be two cells of one placement.
        std::map<std::vector<unsigned>, std::string> sets;
        for (const auto& c : g.cpus)
            if (!c.empty()) {
                std::vector<unsigned> cpus;
                try {
                    cpus = parse_cpu_list(c, mach.num_cpus());
                } catch (const std::invalid_argument& e) {
                    throw usage_error(fmt::format("--cpus '{}' on machine {}: {}", c, m, e.what()));
                }
                std::sort(cpus.begin(), cpus.end());
                if (const auto [it, fresh] = sets.emplace(cpus, c); !fresh)
                    throw usage_error(fmt::format(
                        "--cpus: '{}' and '{}' are the same CPUs (their cells could not "
                        "be told apart)",
                        it->second, c));
            }
    }
    // What every child would refuse, refused before the first (as `run` does).
    for (double r : g.ramp_ms)
        if (r > 3600000.0)
            throw usage_error(fmt::format("--ramp-ms {}: a ramp is at most 3600000 ms", r));
    if (g.seconds * 1e3 / g.interval_ms > 1e6)
        throw usage_error(
            fmt::format("--interval-ms {}: {} s in bins of {} ms is more than 1000000 bins",
                        g.interval_ms, g.seconds, g.interval_ms));
    for (unsigned t : g.threads)
        if (t < 1 || t > 4096)
            throw usage_error(fmt::format("--threads: {} is out of range (1-4096)", t));
    if (g.cell_count() == 0 || g.machines.empty())
        throw usage_error("the grid is empty");
    if (g.seed > std::numeric_limits<std::uint64_t>::max() - (g.runs - 1))
        throw usage_error(fmt::format("--seed {}: the runs' seeds would pass {} (--runs {})",
                                      g.seed, std::numeric_limits<std::uint64_t>::max(), g.runs));
    return g;
}

std::string hms(double seconds)
{
    const long s = std::lround(std::max(0.0, seconds));
    return fmt::format("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

// A progress stream that closed (`sweep 2>&1 | head`) stops the sweep as
// SIGINT does: the children are stopped and waited for, the file keeps
// whole lines. SIGPIPE is ignored for the sweep's life.
bool progress_closed = false;
void say(const std::string& text)
{
    if (progress_closed)
        return;
    if (std::fwrite(text.data(), 1, text.size(), stderr) != text.size() ||
        std::fflush(stderr) != 0) {
        progress_closed = true;
        stop_as_if_interrupted();
    }
}

// Progress on stderr: a bar redrawn in place on a terminal, a plain line
// every 5 s otherwise.
class progress {
public:
    progress(std::size_t total, std::size_t cells)
        : total_(total), cells_(cells), tty_(isatty(2) != 0),
          start_(std::chrono::steady_clock::now())
    {
    }
    void update(std::size_t done, std::size_t cells_done, bool final = false)
    {
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        if (!tty_ && !final && elapsed - last_ < 5)
            return;
        last_ = elapsed;
        const double eta =
            done ? elapsed / static_cast<double>(done) * static_cast<double>(total_ - done) : 0;
        const std::string counts =
            fmt::format("{}/{} runs, {}/{} cells, {} elapsed, ETA {}", done, total_, cells_done,
                        cells_, hms(elapsed), done ? hms(eta) : "--:--:--");
        if (tty_) {
            const std::size_t width = 30, fill = total_ ? done * width / total_ : width;
            say(fmt::format("\r[{}{}] {}{}", std::string(fill, '#'), std::string(width - fill, '.'),
                            counts, final ? "\n" : ""));
        } else {
            say(fmt::format("sweep: {}\n", counts));
        }
    }

private:
    std::size_t total_, cells_;
    bool tty_;
    std::chrono::steady_clock::time_point start_;
    double last_ = -1e9;
};

int sweep(sweep_args& a)
{
    const sweep_grid g = usage_checked([&] { return build_grid(a); });
    const shard_spec shard = usage_checked([&] { return parse_shard(a.shard); });
    if (a.out.empty())
        throw usage_error("--out FILE is required");
    check_output_path("--out", a.out);

    // The grid's size, before anything is enumerated or read.
    std::size_t total = g.runs;
    for (const std::size_t n :
         {g.machines.size(), g.policies.size(), g.workloads.size(), g.kernels.size(),
          g.threads.size(), g.ramp_ms.size(), g.arms.size(), g.cpus.size(), g.prechecks.size()})
        if (__builtin_mul_overflow(total, n, &total))
            throw usage_error(
                "the grid has more runs than this machine can count; make its lists shorter");
    if (total > max_sweep_runs && !a.large_grid)
        throw usage_error(fmt::format(
            "the grid has {} runs ({} cells x --runs {}), more than {}: pass --large-grid "
            "to sweep it (a --shard of it too)",
            total, g.cell_count(), g.runs, max_sweep_runs));
    // This shard's runs: K-1, K-1+N, ...
    const std::size_t owned = owned_in(0, total, shard);
    if (owned == 0)
        throw usage_error(
            fmt::format("--shard {}: this shard owns none of the grid's {} runs", a.shard, total));
    // Held for the sweep's life: a second sweep on the same file is refused.
    const writer_lock lock("--out", a.out);
    const std::set<std::size_t> done_before = load_done(a.out, g);
    std::ofstream out(a.out, std::ios::app | std::ios::binary);
    if (!out)
        throw usage_error(fmt::format("--out {}: cannot open for writing", a.out));
    // The grid's size, said before its runs are enumerated (after the checks
    // above, so that bad input stays one line).
    signal(SIGPIPE, SIG_IGN);  // see say()
    say(fmt::format("sweep: grid {}: {} {} x {} {} = {} {}{}\n", g.id(), g.cell_count(),
                    g.cell_count() == 1 ? "cell" : "cells", g.runs, g.runs == 1 ? "run" : "runs",
                    total, total == 1 ? "run" : "runs",
                    shard.n == 1 ? "" : fmt::format(", {} of them in shard {}", owned, a.shard)));

    std::map<std::size_t, std::size_t> per_cell;  // cell -> runs of it done
    for (std::size_t i : done_before)
        if (shard.owns(i))
            per_cell[i / g.runs]++;
    std::size_t finished = 0;
    for (const auto& [cell, n] : per_cell)
        finished += n;
    if (finished == owned) {
        say(fmt::format("sweep: all {} {} of this shard {} already in {}\n", owned,
                        owned == 1 ? "run" : "runs", owned == 1 ? "is" : "are", a.out));
        return sigint_received() ? interrupted_status : 0;
    }
    // The runs still to do, taken one by one (a grid of a billion runs
    // is never held in memory).
    run_cursor todo(shard, total, done_before);
    const unsigned jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t to_do = owned - finished;
    std::optional<std::string> failure;
    // --fail-on-warning: the first run that warned (it stopped there and
    // printed its cut-short line, which is not the grid's result: not
    // written, so that a resume runs it in full).
    std::optional<std::string> warned;
    progress bar(owned, cells_owned(g, total, shard));
    auto cells_done = [&] {
        return static_cast<std::size_t>(
            std::count_if(per_cell.begin(), per_cell.end(), [&](const auto& kv) {
                return kv.second == owned_in(kv.first * g.runs, (kv.first + 1) * g.runs, shard);
            }));
    };

    child_pool_hooks hooks;
    hooks.exhausted = [&] { return todo.exhausted(); };
    hooks.take = [&] { return todo.take(); };
    hooks.arguments = [&](std::size_t run_index) { return run_arguments(g, run_index); };
    hooks.unstartable = [&](std::size_t run_index, const std::system_error& e) {
        // The sweep stops with what it has, as on a failed run.
        if (!failure)
            failure = fmt::format("run {}: {}", run_index, e.what());
    };
    hooks.ended = [&](std::size_t run_index, const child_result& r) {
        if (r.status == 0 && !r.out.empty()) {
            out << result_line(g, run_index, r.out.substr(0, r.out.find('\n'))) << '\n';
            out.flush();
            if (!out && !failure)
                failure = fmt::format("--out {}: write failed", a.out);
            finished++;
            per_cell[run_index / g.runs]++;
        } else if (const std::size_t at = warned_line(r.err);
                   g.fail_on_warning && r.status == 1 && at != std::string::npos) {
            if (!warned) {
                const std::size_t from = at + fail_on_warning_prefix.size();
                warned = fmt::format("run {} ({}) warned: {}", run_index,
                                     fmt::join(run_arguments(g, run_index), " "),
                                     r.err.substr(from, r.err.find('\n', from) - from));
            }
        } else if (r.status != interrupted_status && !sigint_received() && !failure && !warned) {
            const std::string err = r.err.substr(0, r.err.find('\n'));
            failure = fmt::format("run {} ({}) failed with status {}: {}", run_index,
                                  fmt::join(run_arguments(g, run_index), " "), r.status, err);
        }
    };
    // A failure stops the sweep; the first warning also stops the runs in
    // flight, as SIGINT does (their partial results are dropped).
    hooks.stopped = [&] { return failure.has_value(); };
    hooks.interrupting = [&] { return warned.has_value(); };
    hooks.progress = [&](bool final) { bar.update(finished, cells_done(), final); };
    run_child_pool(self_executable(), jobs, to_do, hooks);
    if (failure)
        throw usage_error(*failure);
    if (warned && !sigint_received()) {
        std::fputs(fmt::format("sweep: {}\nsweep: stopped at the first warning "
                               "(--fail-on-warning); {} of {} runs are "
                               "in {}\n",
                               *warned, finished, owned, a.out)
                       .c_str(),
                   stderr);
        return 1;
    }
    if (sigint_received()) {
        // fputs, not fmt::print: a closed stderr must not turn this into an exception.
        std::fputs(
            fmt::format(
                "sweep: interrupted; {} of {} runs are in {} (run the same command to resume)\n",
                finished, owned, a.out)
                .c_str(),
            stderr);
        return interrupted_status;
    }
    return 0;
}

}  // namespace

void register_sweep(CLI::App& app)
{
    auto a = std::make_shared<sweep_args>();
    CLI::App* sub = app.add_subcommand(
        "sweep",
        "Simulate a grid of runs (machines x policies x workloads x kernels x threads x ramps x "
        "arms x "
        "CPU lists x precheck), R seeds per cell, J at a time; one JSON line per run in --out");
    auto* machine =
        sub->add_option("--machine", a->machines,
                        "Machine presets, comma-separated (with --machine-file: only if given)")
            ->capture_default_str();
    sub->add_option(
        "--machine-file", a->machine_files,
        "Machine files, comma-separated: the sweep runs these (and --machine's presets only if "
        "--machine is given too); a file whose content changed since the runs in --out were "
        "made is refused on resume");
    sub->add_option("--policy", a->policies, "Pivot policies, comma-separated")
        ->capture_default_str();
    sub->add_option("--workload", a->workloads, "Workloads, comma-separated")
        ->capture_default_str();
    sub->add_option("--kernel", a->kernels, "Kernel versions, comma-separated")
        ->capture_default_str();
    sub->add_option("--threads", a->threads,
                    "Thread counts: values and FROM:TO:STEP ranges, e.g. 16,32,48:96:8")
        ->capture_default_str();
    sub->add_option("--ramp-ms", a->ramp_ms, "Ramps in milliseconds, comma-separated")
        ->capture_default_str();
    sub->add_option("--arms", a->arms, "Hash sizing: auto, presize:N, global; comma-separated")
        ->capture_default_str();
    sub->add_option("--cpus", a->cpus,
                    "CPU lists, separated by ';' (each as taskset: 0-95); default all CPUs");
    sub->add_option("--precheck", a->prechecks, "off, on or off,on")->capture_default_str();
    sub->add_option("--seconds", a->grid.seconds, "Virtual seconds per run")
        ->transform(real_number(0.001, 3600.0))
        ->capture_default_str();
    sub->add_option("--interval-ms", a->grid.interval_ms,
                    "Width of the per-interval throughput bins")
        ->transform(real_number(0.1, 10000.0))
        ->capture_default_str();
    sub->add_option("--runs", a->grid.runs, "Runs (seeds) per cell")
        ->transform(whole_number(1, 100000))
        ->capture_default_str();
    sub->add_option("--seed", a->grid.seed, "Seed of each cell's first run")
        ->transform(whole_number(0, std::numeric_limits<std::uint64_t>::max()))
        ->capture_default_str();
    sub->add_flag(
        "--exact", a->grid.exact,
        "Every run simulates every operation (run --exact); without it a run that turns stationary "
        "is measured and extrapolated (docs/simulator.md, \"Fast-forward\")");
    a->detectors.add_to(*sub);
    sub->add_flag(
        "--fail-on-warning", a->grid.fail_on_warning,
        "Every run stops at its first warning; the sweep then stops its other runs and exits with "
        "status 1, naming the run (its line is not written: a resume runs it in full)");
    sub->add_option("--out", a->out, "JSON Lines file; runs already in it are skipped (resume)")
        ->required();
    sub->add_option("--jobs", a->jobs,
                    "Runs at a time (default: every CPU). With more than one, lines are written as "
                    "runs finish, "
                    "so two identical sweeps may order them differently; each line names its run, "
                    "and report "
                    "reads them in any order (the same table)")
        ->transform(whole_number(1, 1024));
    sub->add_option("--shard", a->shard, "K/N: run only the runs whose index is K-1 modulo N")
        ->capture_default_str();
    sub->add_flag(
        "--large-grid", a->large_grid,
        fmt::format("Sweep a grid of more than {} runs (refused without it: a mistyped range or "
                    "--runs would enumerate for minutes)",
                    max_sweep_runs));
    sub->parse_complete_callback([a, machine] { a->machine_given = machine->count() > 0; });
    sub->footer("Each line of --out is one run: the `run --json` object under \"run\", the cell's "
                "parameters\n"
                "under \"cell\", and the grid's id; a run's warnings (the progress detectors', the "
                "model's) are in\n"
                "its \"warnings\", and `futexsim report` counts the runs that warned per cell. "
                "Stderr: progress.\n"
                "SIGINT (SIGTERM, SIGHUP, a closed stderr) stops the sweep,\n"
                "stops and drops the runs in flight and leaves a valid file (exit status 128 + "
                "signal); the\n"
                "same command resumes it. Shards of one sweep\n"
                "(--shard 1/N ... N/N, on any machines) write separate files that `futexsim "
                "report` merges.");
    add_command(sub, [a] { return sweep(*a); });
}

}  // namespace futexsim::cli
