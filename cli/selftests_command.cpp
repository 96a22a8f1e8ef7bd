// `futexsim selftests`: the kernel's futex selftests that a pivot can
// disturb, as the simulator runs them (sim/timed/selftests.h), on any machine and
// under any policy; one line per case with what its calls returned.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/numbers.h"
#include "machine/machine.h"
#include "model/core.h"
#include "run/run_checks.h"
#include "run/stop_signal.h"
#include "sim/timed/selftests.h"

namespace futexsim::cli {

namespace {

struct selftests_args {
    std::string machine = "xeon-6975p-snc3";
    std::string machine_file;
    std::vector<std::string> policies;  // empty: every policy
    std::string kernel{model::kernel_version_name(model::default_kernel_version)};
    unsigned runs = 8;
    std::uint64_t seed = 1;
    unsigned hz = 0;  // 0: the machine's
};

std::string joined(const std::vector<std::string>& names)
{
    std::string s;
    for (const auto& n : names)
        s += (s.empty() ? "" : ", ") + n;
    return s;
}

// "10/7 x6, 0/0 x2": each distinct result with its count, in order of
// first appearance.
std::string tally(const std::vector<std::string>& returned)
{
    std::vector<std::string> order;
    std::map<std::string, unsigned> count;
    for (const auto& r : returned)
        if (count[r]++ == 0)
            order.push_back(r);
    std::string s;
    for (const auto& r : order)
        s += fmt::format("{}{} x{}", s.empty() ? "" : ", ", r, count[r]);
    return s;
}

std::vector<std::string> all_policies()
{
    std::vector<std::string> names;
    const std::string list = model::pivot_policy_names();
    for (std::size_t start = 0; start < list.size();) {
        std::size_t end = list.find(", ", start);
        if (end == std::string::npos)
            end = list.size();
        names.push_back(list.substr(start, end - start));
        start = end + 2;
    }
    return names;
}

int run(selftests_args& a)
{
    machine m = usage_checked([&] {
        return a.machine_file.empty() ? load_machine_preset(a.machine)
                                      : read_machine_file("--machine-file", a.machine_file);
    });
    if (a.hz) {
        m.hz = a.hz;
        m.rcu_fqs_jiffies = kernel_default_fqs_jiffies(a.hz, m.num_cpus());
    }
    const auto kernel = model::parse_kernel_version(a.kernel);
    if (!kernel)
        throw usage_error(fmt::format("--kernel '{}': expected one of {}", a.kernel,
                                      model::kernel_version_names));
    std::vector<std::string> policies = a.policies.empty() ? all_policies() : a.policies;
    for (auto p = policies.begin(); p != policies.end(); ++p) {
        usage_checked([&] { return require_pivot_policy(*p); });
        if (std::find(policies.begin(), p, *p) != p)
            throw usage_error(
                fmt::format("--policy {} given twice: its lines could not be told apart", *p));
    }
    if (a.runs - 1 > std::numeric_limits<std::uint64_t>::max() - a.seed)
        throw usage_error(fmt::format("--seed {} with --runs {}: the runs' seeds would pass {}",
                                      a.seed, a.runs, std::numeric_limits<std::uint64_t>::max()));

    print_line(fmt::format("machine={} cpus={} hz={} kernel={} runs={} seeds={}-{}",
                           m.name.empty() ? a.machine_file : m.name, m.num_cpus(), m.hz, a.kernel,
                           a.runs, a.seed, a.seed + a.runs - 1));
    for (std::size_t pi = 0; pi < policies.size(); pi++) {
        const std::string& policy = policies[pi];
        sim::selftest_options opt;
        opt.policy = policy;
        opt.kernel = *kernel;
        opt.seed = a.seed;
        const auto cases =
            sim::run_selftests(m, opt, a.runs, [] { return sigint_received().load(); });
        for (const auto& c : cases) {
            std::string line =
                fmt::format("policy={} {} {} keys={} passed={}/{} returned: {}", policy, c.test,
                            c.name.find(' ') == std::string::npos ? c.name : "'" + c.name + "'",
                            c.keys, c.passed, c.runs, tally(c.returned));
            if (c.test != "futex_requeue")
                line += fmt::format(" longest={:.1f}us", static_cast<double>(c.longest_ns) / 1000);
            print_line(line);
        }
        if (sigint_received()) {
            // Say where it stopped: the header's runs= is what was asked for.
            const std::vector<std::string> rest(
                policies.begin() + static_cast<std::ptrdiff_t>(pi) + 1, policies.end());
            fmt::print(
                stderr,
                "futexsim: selftests interrupted by {}: policy {} ran {} of {} runs; not run: {}\n",
                stop_signal_name(), policy, cases.empty() ? 0 : cases.front().runs, a.runs,
                rest.empty() ? "none" : fmt::format("{}", fmt::join(rest, ", ")));
            return interrupted_status;
        }
    }
    return 0;
}

}  // namespace

void register_selftests(CLI::App& app)
{
    auto a = std::make_shared<selftests_args>();
    CLI::App* sub = app.add_subcommand(
        "selftests",
        "Run the kernel's futex selftests that a pivot can disturb (futex_requeue, "
        "futex_wait_timeout, futex_wait_wouldblock, futex_requeue_pi) on a simulated machine, under each policy");
    sub->add_option("--machine", a->machine,
                    "Machine preset: " + joined(machine_preset_names()) +
                        " (host reads this machine's /proc and /sys)")
        ->capture_default_str();
    sub->add_option("--machine-file", a->machine_file,
                    "JSON machine description (see docs/simulator.md); overrides --machine")
        ->check(readable_file());
    sub->add_option("--policy", a->policies,
                    "Pivot policy: " + model::pivot_policy_names() +
                        " (docs/policies.md); may be given more than once; default: every policy");
    sub->add_option("--kernel", a->kernel,
                    fmt::format("Kernel whose futex code the model runs: {} (docs/kernel-map.md)",
                                model::kernel_version_names))
        ->capture_default_str();
    sub->add_option("--runs", a->runs, "Runs of each case, with seeds seed, seed+1, ...")
        ->transform(whole_number(1, 10000))
        ->capture_default_str();
    sub->add_option("--seed", a->seed, "Seed of the first run")
        ->transform(whole_number(0, std::numeric_limits<std::uint64_t>::max()))
        ->capture_default_str();
    sub->add_option("--hz", a->hz,
                    "Override the machine's CONFIG_HZ (and take the kernel's default first-FQS "
                    "delay for it)")
        ->transform(whole_number(100, 10000));
    sub->footer(
        "Each case runs in a fresh simulated process, as the kernel's selftest harness forks one "
        "per\n"
        "test, and issues its calls as the real test does: futex_requeue and futex_wait_timeout\n"
        "without FUTEX_PRIVATE_FLAG (shared keys: the global hash, no private-hash reference),\n"
        "futex_wait_wouldblock with it. The two wait cases are made right after the process has "
        "grown\n"
        "to 10 parked threads, so that a pivot is pending where the machine has 5 or more CPUs "
        "(the\n"
        "real tests are single-threaded). One line per policy and case: how many runs passed and\n"
        "what the calls returned (requeue: cmp_requeue's count / the wake's count). Compare these\n"
        "inner results with a real run's output lines, not exit statuses. futex_requeue_pi runs\n"
        "twice over: its owner handshake without PI (the blocker's wait and the waker's wake), and\n"
        "its 24 variants with the PI calls, t_0 ... t_0_owner without a timeout and the same six at\n"
        "5000, 500000 and 2000000000 ns (returned is the waker's requeued count and how many waiters\n"
        "timed out, or the test's failure, or 'hung' with where each thread sleeps).\n"
        "docs/policies.md has the recorded table.");
    add_command(sub, [a] { return run(*a); });
}

}  // namespace futexsim::cli
