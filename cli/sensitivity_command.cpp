// `futexsim sensitivity`: how much the predictions hang on the parameters
// that are assumed or measured on one machine only. For each one, a machine file at the low and
// the high end of its plausible range (cli/sensitivity.cpp says where each
// range comes from), then one `futexsim sweep` over the base machine and
// every variant (auto-scaled runs over the thread grid; presized runs at
// the largest count), and `futexsim report`'s cells: per variant the stall
// threshold as a band, the auto-scaled throughput at the largest count
// (latched, where it latches) and the presized throughput. Printed as a
// tornado table, largest threshold swing first (undecided ends last); --format json for
// experiments/plot_tornado.py.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include "cli/child_run.h"
#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/numbers.h"
#include "cli/report_stats.h"
#include "cli/sensitivity.h"
#include "cli/stop_signals.h"
#include "cli/sweep_grid.h"
#include "cli/writer_lock.h"
#include "machine/embedded_presets.h"
#include "machine/machine.h"
#include "model/kernel_version.h"
#include "run/plural.h"
#include "run/stop_signal.h"

namespace futexsim::cli {

namespace {

using json = nlohmann::ordered_json;

struct sensitivity_args {
    std::string machine = "xeon-6975p-snc3", machine_file, workload = "wake-nowaiters";
    std::string kernel{model::kernel_version_name(model::default_kernel_version)};
    std::string threads = "32,48,64,80,96", cpus = "0-95", out_dir, format = "md";
    std::optional<std::string> params;  // not given: every parameter
    unsigned runs = 4, jobs = 0;
    double seconds = 0.3, presized_seconds = 0.02;
};

std::string read_text(const std::string& path)
{
    return read_input_file("--machine-file", path, max_machine_file_bytes);
}

std::string base_machine_text(const sensitivity_args& a)
{
    if (!a.machine_file.empty())
        return read_text(a.machine_file);
    for (const auto& p : embedded_machine_presets())
        if (p.name == a.machine)
            return std::string(p.json);
    throw usage_error(fmt::format("--machine: '{}' has no machine file to vary (the presets: {})",
                                  a.machine, fmt::join(machine_preset_names(), ", ")));
}

void write_file(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out)
        throw usage_error(fmt::format("--out-dir: cannot write {}", path));
}

// Runs `futexsim ARGS...` as a child (`step` says which, for a stop); its
// standard output, or a usage error. A stop (SIGINT, SIGTERM, SIGHUP, to it
// or its process group) reaches the child, which stops at its safe point;
// what was done is said: `step` says which steps before it are complete,
// and a sweep how many of its runs are in its file.
std::string run_self(const std::vector<std::string>& args, const std::string& step)
{
    const child_result r = run_child(self_executable(), args, [](pid_t) {});
    if (r.status == interrupted_status || r.status == stop_status() || sigint_received()) {
        // "sweep: interrupted; 3 of 8 runs are in F (run the same command to resume)"
        const std::string head = "sweep: interrupted; ";
        const std::size_t at = r.err.rfind(head);
        const std::size_t to = at == std::string::npos ? at : r.err.find(" (run the same", at);
        const std::string said = to == std::string::npos
                                     ? ""
                                     : ": " + r.err.substr(at + head.size(), to - at - head.size());
        throw interrupted(fmt::format(
            "sensitivity stopped in {}{}; the same command resumes from --out-dir", step, said));
    }
    if (r.status != 0) {
        // The error is the child's last line (a sweep says its grid's size first).
        std::string err = r.err.substr(0, r.err.find_last_not_of('\n') + 1);
        err = err.substr(err.rfind('\n') + 1);
        throw usage_error(fmt::format("futexsim {} failed: {}", args.front(), err));
    }
    return r.out;
}

struct variant_result {
    latched_counts latched;
    double auto_mops = 0, presized_mops = 0;
};

int sensitivity_checked(const sensitivity_args& a);

// Bad input found by the parsers (std::invalid_argument) is a usage error.
int sensitivity(const sensitivity_args& a)
{
    return usage_checked([&] { return sensitivity_checked(a); });
}

int sensitivity_checked(const sensitivity_args& a)
{
    if (a.out_dir.empty())
        throw usage_error("--out-dir DIR is required");
    std::vector<const sensitivity_param*> params;
    if (!a.params) {
        for (const auto& p : sensitivity_params())
            params.push_back(&p);
    } else {
        // '' is refused as an empty entry: leaving the flag out means all.
        for (const auto& name : parse_name_list("--params", *a.params)) {
            const sensitivity_param* p = find_sensitivity_param(name);
            if (!p) {
                std::vector<std::string> names;
                for (const auto& q : sensitivity_params())
                    names.push_back(q.name);
                throw usage_error(fmt::format("--params: unknown parameter '{}' (valid: {})", name,
                                              fmt::join(names, ", ")));
            }
            if (std::find(params.begin(), params.end(), p) != params.end())
                throw usage_error(fmt::format("--params: '{}' given twice", name));
            params.push_back(p);
        }
    }
    // Everything its sweeps would refuse, refused before a file is written.
    const std::vector<unsigned> threads = parse_uint_grid("--threads", a.threads);
    for (std::size_t i = 1; i < threads.size(); i++)
        if (std::find(threads.begin(), threads.begin() + static_cast<std::ptrdiff_t>(i),
                      threads[i]) != threads.begin() + static_cast<std::ptrdiff_t>(i))
            throw usage_error(fmt::format("--threads: '{}' is given twice", threads[i]));
    if (!model::parse_kernel_version(a.kernel))
        throw usage_error(fmt::format("--kernel: unknown kernel '{}' (valid: {})", a.kernel,
                                      model::kernel_version_names));
    const std::string base = base_machine_text(a);
    // Valid, or the parser's error naming the file.
    const machine base_machine = a.machine_file.empty()
                                     ? parse_machine_json(base, a.machine)
                                     : read_machine_file("--machine-file", a.machine_file);
    try {
        parse_cpu_list(a.cpus, base_machine.num_cpus());
    } catch (const std::invalid_argument& e) {
        throw usage_error(fmt::format("--cpus '{}': {}", a.cpus, e.what()));
    }
    check_utf8_name("--out-dir", a.out_dir);
    check_utf8_name("--out-dir", std::filesystem::absolute(a.out_dir).string());
    std::error_code ec;
    std::filesystem::create_directories(a.out_dir, ec);
    if (ec)
        throw usage_error(fmt::format("--out-dir {}: {}", a.out_dir, ec.message()));
    const std::string dir = std::filesystem::absolute(a.out_dir).string();
    // One sensitivity per folder: a second would rewrite the machine files
    // under the first one's runs. The lock is on base.json, which both write.
    const writer_lock lock("--out-dir", dir + "/base.json", a.out_dir);

    // The machine files: the base once, each parameter at both ends.
    const std::string base_file = dir + "/base.json";
    write_file(base_file, base);
    std::string files = base_file;
    for (const sensitivity_param* p : params)
        for (const auto& [end, v] : {std::pair{"low", p->low}, std::pair{"high", p->high}}) {
            const std::string file = fmt::format("{}/{}-{}.json", dir, p->name, end);
            write_file(file, machine_variant(base, *p, v, fmt::format("{}={}", p->name, v)));
            files += "," + file;
        }

    const std::string jobs =
        std::to_string(a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency()));
    const std::string auto_out = dir + "/auto.jsonl", presized_out = dir + "/presized.jsonl";
    // Flag, value pairs, packed (clang-format would put each on its own line).
    // clang-format off
    const std::vector<std::string> auto_sweep = {
        "sweep", "--machine", "", "--machine-file", files, "--workload", a.workload, "--kernel", a.kernel,
        "--threads", a.threads, "--arms", "auto", "--runs", std::to_string(a.runs), "--seconds", fmt::format("{}", a.seconds),
        "--cpus", a.cpus, "--out", auto_out, "--jobs", jobs};
    run_self(auto_sweep, "the auto-scaled sweep (1 of 2)");
    const std::vector<std::string> presized_sweep = {
        "sweep", "--machine", "", "--machine-file", files, "--workload", a.workload, "--kernel", a.kernel,
        "--threads", std::to_string(threads.back()), "--arms", "presize:512", "--runs", "1", "--seconds",
        fmt::format("{}", a.presized_seconds), "--cpus", a.cpus, "--out", presized_out, "--jobs", jobs};
    // clang-format on
    run_self(presized_sweep, "the presized sweep (2 of 2; the auto-scaled one is complete)");

    std::map<std::string, variant_result> by_file;
    for (const auto& out : {auto_out, presized_out}) {
        const json rep =
            json::parse(run_self({"report", "--format", "json", out}, "the report of " + out));
        for (const auto& c : rep.at("cells")) {
            variant_result& r = by_file[c.at("machine").get<std::string>()];  // machine_file_cell()
            const auto t = c.at("threads").get<unsigned>();
            if (c.at("arm") == "auto") {
                r.latched[t] = {c.at("latched").get<std::size_t>(),
                                c.at("runs").get<std::size_t>()};
                if (t == threads.back())
                    r.auto_mops = c.at("mops_median").get<double>();
            } else {
                r.presized_mops = c.at("mops_median").get<double>();
            }
        }
    }

    // One row per parameter: low, preset, high.
    const variant_result& preset = by_file.at(machine_file_cell(base_file));
    struct row {
        const sensitivity_param* p;
        double preset_value;
        const variant_result *low, *high;
        double swing;
    };
    auto edge = [&](const threshold_band& b) {
        return static_cast<double>(b.above.value_or(threads.back() + 1));
    };
    std::vector<row> rows;
    for (const sensitivity_param* p : params) {
        row r{p, machine_value(base, *p),
              &by_file.at(machine_file_cell(fmt::format("{}/{}-low.json", dir, p->name))),
              &by_file.at(machine_file_cell(fmt::format("{}/{}-high.json", dir, p->name))), 0};
        // An undecided end (no count cleared 1/2 either way) has no edge to
        // swing from: such a row has no swing (-1) and goes last.
        const threshold_band lo = stall_band(r.low->latched), hi = stall_band(r.high->latched);
        const auto undecided = [](const threshold_band& b) { return !b.above && !b.below; };
        r.swing = undecided(lo) || undecided(hi) ? -1 : std::abs(edge(hi) - edge(lo));
        rows.push_back(r);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const row& x, const row& y) { return x.swing > y.swing; });

    if (a.format == "json") {
        json j;
        j["workload"] = a.workload;
        j["kernel"] = a.kernel;
        j["machine"] = a.machine_file.empty() ? a.machine : a.machine_file;
        j["threads"] = threads;
        j["runs"] = a.runs;
        j["seconds"] = a.seconds;
        auto side = [](const variant_result& v) {
            const threshold_band b = stall_band(v.latched);
            return json{{"threshold", b.text()},
                        {"threshold_above", b.above ? json(*b.above) : json(nullptr)},
                        {"threshold_below", b.below ? json(*b.below) : json(nullptr)},
                        {"auto_mops", v.auto_mops},
                        {"presized_mops", v.presized_mops}};
        };
        j["preset"] = side(preset);
        j["parameters"] = json::array();
        for (const auto& r : rows)
            j["parameters"].push_back({{"name", r.p->name},
                                       {"why", r.p->why},
                                       {"low", r.p->low},
                                       {"preset", r.preset_value},
                                       {"high", r.p->high},
                                       {"at_low", side(*r.low)},
                                       {"at_high", side(*r.high)}});
        print_line(j.dump(2));
        return 0;
    }
    print_line(
        fmt::format("# Sensitivity: {} on {} under {}, threads {}, {} of {} virtual s per point",
                    a.workload, a.machine_file.empty() ? a.machine : a.machine_file, a.kernel,
                    a.threads, count_noun(a.runs, "run"), a.seconds));
    print_line("");
    print_line(fmt::format(
        "Preset: threshold {}, auto {:.1f} Mops/s at {} threads, presized {:.1f} Mops/s.",
        stall_band(preset.latched).text(), preset.auto_mops, threads.back(), preset.presized_mops));
    print_line("Threshold: the thread count where the latched probability's 95% interval first "
               "lies above 1/2,");
    print_line("as a band from the last count whose interval lies below it. Ordered by the "
               "threshold's swing, the");
    print_line("distance between the bands' upper ends at low and high (a threshold beyond the "
               "grid counts as one");
    print_line("past its largest count), largest first; a parameter undecided at either end (no "
               "count cleared 1/2");
    print_line("either way: too few runs) has no swing and comes last.");
    print_line("");
    print_line(fmt::format("| parameter | low / preset / high | threshold at low | at high | auto "
                           "Mops/s at {} (low / high) "
                           "| presized Mops/s (low / high) | range from |",
                           threads.back()));
    print_line("|---|---|---|---|---|---|---|");
    for (const auto& r : rows)
        print_line(fmt::format(
            "| {} | {} / {} / {} | {} | {} | {:.1f} / {:.1f} | {:.1f} / {:.1f} | {} |", r.p->name,
            r.p->low, r.preset_value, r.p->high, stall_band(r.low->latched).text(),
            stall_band(r.high->latched).text(), r.low->auto_mops, r.high->auto_mops,
            r.low->presized_mops, r.high->presized_mops, r.p->why));
    return 0;
}

}  // namespace

void register_sensitivity(CLI::App& app)
{
    auto a = std::make_shared<sensitivity_args>();
    CLI::App* sub = app.add_subcommand(
        "sensitivity",
        "Vary each assumed (or singly measured) machine parameter over its plausible range and "
        "print its effect "
        "on the stall threshold and on latched and healthy throughput (a tornado table)");
    auto* machine =
        sub->add_option("--machine", a->machine, "Machine preset to vary")->capture_default_str();
    sub->add_option("--machine-file", a->machine_file, "Machine file to vary instead of a preset")
        ->excludes(machine);
    sub->add_option("--workload", a->workload, "Workload")->capture_default_str();
    sub->add_option("--kernel", a->kernel,
                    fmt::format("Kernel version the model runs (as run's --kernel: {})",
                                model::kernel_version_names))
        ->capture_default_str();
    sub->add_option("--threads", a->threads, "Thread grid for the threshold (as sweep's --threads)")
        ->capture_default_str();
    sub->add_option("--cpus", a->cpus, "CPU list every run may use")->capture_default_str();
    sub->add_option("--runs", a->runs,
                    "Auto-scaled runs (seeds) per thread count and variant (at least 4 for "
                    "4 of 4 to put an interval above 1/2)")
        ->transform(whole_number(1, 1000))
        ->capture_default_str();
    sub->add_option("--seconds", a->seconds, "Virtual seconds per auto-scaled run")
        ->transform(real_number(0.001, 3600.0))
        ->capture_default_str();
    sub->add_option("--presized-seconds", a->presized_seconds, "Virtual seconds per presized run")
        ->transform(real_number(0.001, 3600.0))
        ->capture_default_str();
    sub->add_option("--params", a->params,
                    "Parameters to vary, comma-separated (default: all of them)");
    sub->add_option("--out-dir", a->out_dir,
                    "Folder for the variant machine files and the sweeps' results "
                    "(a rerun resumes the sweeps)")
        ->required();
    sub->add_option("--jobs", a->jobs, "Runs at a time (default: every CPU)")
        ->transform(whole_number(1, 1024));
    sub->add_option("--format", a->format, "md or json")
        ->check(CLI::IsMember({"md", "json"}))
        ->capture_default_str();
    std::string footer =
        "Prints (md, the default): per parameter, the stall threshold and the latched and healthy\n"
        "throughput at its low and high end against the preset's (a tornado table, widest first);\n"
        "json: the same rows. Progress goes to stderr.\n"
        "Parameters and their ranges:\n";
    for (const auto& p : sensitivity_params())
        footer += fmt::format("  {} {}..{}: {}\n", p.name, p.low, p.high, p.why);
    sub->footer(
        footer +
        "Plot: experiments/plot_tornado.py on --format json output (docs/results.md).\n"
        "SIGINT (to it alone or to its process group, as Ctrl-C sends), SIGTERM or SIGHUP stops "
        "the\n"
        "sweep in progress and its runs at a safe point and says what was done (which sweep, how\n"
        "many of its runs are in its file); exit status 128 + the signal, no table; the same\n"
        "command resumes.");
    add_command(sub, [a] { return sensitivity(*a); });
}

}  // namespace futexsim::cli
