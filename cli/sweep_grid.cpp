#include "cli/sweep_grid.h"

#include "cli/numbers.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>

namespace futexsim::cli {

namespace {

std::vector<std::string> split(const std::string& text, char sep)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = text.find(sep, start);
        out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos)
            return out;
        start = end + 1;
    }
}

// A whole decimal number that fits a T (cli/numbers.h: digits only).
template <class T>
std::optional<T> whole(const std::string& s)
{
    const auto v = parse_whole(s);
    if (!v || *v > std::numeric_limits<T>::max())
        return std::nullopt;
    return static_cast<T>(*v);
}

[[noreturn]] void bad(const std::string& flag, const std::string& text, const std::string& why)
{
    throw std::invalid_argument(fmt::format("{} '{}': {}", flag, text, why));
}

// FNV-1a, 64 bits: a stable fingerprint of the grid's text.
std::uint64_t fnv1a(const std::string& s)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

}  // namespace

std::size_t sweep_grid::cell_count() const
{
    return machines.size() * policies.size() * workloads.size() * kernels.size() * threads.size() *
           ramp_ms.size() * arms.size() * cpus.size() * prechecks.size();
}

std::string content_hash(const std::string& text) { return fmt::format("{:016x}", fnv1a(text)); }

std::string sweep_grid::machine_hash(const std::string& name) const
{
    for (std::size_t i = 0; i < machines.size() && i < machine_hashes.size(); i++)
        if (machines[i] == name)
            return machine_hashes[i];
    return "";
}

std::string sweep_grid::id() const
{
    std::string text = fmt::format("v{};{};{};{};{};", sweep_format_version, fmt::join(machines, ","),
                                   fmt::join(policies, ","), fmt::join(workloads, ","), fmt::join(kernels, ","));
    text += fmt::format("{};{};{};{};", fmt::join(threads, ","), fmt::join(ramp_ms, ","), fmt::join(arms, ","),
                        fmt::join(cpus, ";"));
    for (bool p : prechecks)
        text += p ? "on," : "off,";
    text += fmt::format(";{};{};{};{}", seconds, interval_ms, runs, seed);
    if (exact)
        text += ";exact";
    if (!detector_args.empty())
        text += fmt::format(";detectors={}", fmt::join(detector_args, " "));
    // Machine files' content (none: the id of a grid of presets, as before).
    if (std::any_of(machine_hashes.begin(), machine_hashes.end(),
                    [](const std::string& h) { return !h.empty(); }))
        text += fmt::format(";machine_files={}", fmt::join(machine_hashes, ","));
    return content_hash(text);
}

// Cells in row-major order, the last list fastest: machine, policy,
// workload, kernel, cpus, precheck, ramp, arm, threads.
sweep_cell cell_at(const sweep_grid& g, std::size_t index)
{
    sweep_cell c;
    c.index = index;
    std::size_t i = index;
    auto take = [&i](std::size_t n) {
        const std::size_t v = i % n;
        i /= n;
        return v;
    };
    c.threads = g.threads[take(g.threads.size())];
    c.arm = g.arms[take(g.arms.size())];
    c.ramp_ms = g.ramp_ms[take(g.ramp_ms.size())];
    c.precheck = g.prechecks[take(g.prechecks.size())];
    c.cpus = g.cpus[take(g.cpus.size())];
    c.kernel = g.kernels[take(g.kernels.size())];
    c.workload = g.workloads[take(g.workloads.size())];
    c.policy = g.policies[take(g.policies.size())];
    c.machine = g.machines[take(g.machines.size())];
    return c;
}

std::string machine_file_cell(const std::string& path)
{
    const std::filesystem::path abs = std::filesystem::absolute(path).lexically_normal();
    const std::filesystem::path rel = abs.lexically_relative(std::filesystem::current_path());
    const bool inside = !rel.empty() && *rel.begin() != "..";
    return "file:" + (inside ? rel : abs).string();
}

std::vector<std::string> run_arguments(const sweep_grid& g, std::size_t run_index)
{
    const sweep_cell c = cell_at(g, run_index / g.runs);
    const std::uint64_t seed = g.seed + run_index % g.runs;
    std::vector<std::string> a{"run", "--json"};
    if (c.machine.rfind("file:", 0) == 0)
        a.insert(a.end(), {"--machine-file", c.machine.substr(5), "--machine-file-hash",
                           g.machine_hash(c.machine)});
    else
        a.insert(a.end(), {"--machine", c.machine});
    a.insert(a.end(), {"--policy", c.policy, "--workload", c.workload, "--kernel", c.kernel, "--threads",
                       std::to_string(c.threads), "--ramp-ms", fmt::format("{}", c.ramp_ms), "--seconds",
                       fmt::format("{}", g.seconds), "--interval-ms", fmt::format("{}", g.interval_ms), "--seed",
                       std::to_string(seed)});
    if (c.arm == "global")
        a.emplace_back("--global-hash");
    else if (c.arm.rfind("presize:", 0) == 0)
        a.insert(a.end(), {"--presize", c.arm.substr(8)});
    if (!c.cpus.empty())
        a.insert(a.end(), {"--cpus", c.cpus});
    if (c.precheck)
        a.emplace_back("--precheck");
    if (g.exact)
        a.emplace_back("--exact");
    a.insert(a.end(), g.detector_args.begin(), g.detector_args.end());
    if (g.fail_on_warning)
        a.emplace_back("--fail-on-warning");
    return a;
}

std::vector<unsigned> parse_uint_grid(const std::string& flag, const std::string& text)
{
    std::vector<unsigned> out;
    for (const std::string& item : split(text, ',')) {
        const auto parts = split(item, ':');
        if (parts.size() == 1) {
            const auto v = whole<unsigned>(item);
            if (!v)
                bad(flag, text, fmt::format("'{}' is not a whole number", item));
            out.push_back(*v);
            continue;
        }
        // FROM:TO:STEP, both ends included when the steps land on TO.
        // Plain values, not optionals: GCC's -Wmaybe-uninitialized cannot
        // follow the checks through std::optional under -O2 with sanitizers.
        unsigned range[3] = {0, 0, 0};
        bool ok = parts.size() == 3;
        for (std::size_t i = 0; ok && i < 3; i++) {
            const auto v = whole<unsigned>(parts[i]);
            ok = v.has_value();
            range[i] = v.value_or(0);
        }
        const unsigned from = range[0], to = range[1], step = range[2];
        if (!ok || step == 0 || to < from)
            bad(flag, text, fmt::format("'{}': expected FROM:TO:STEP with FROM <= TO and STEP >= 1", item));
        if ((to - from) / step >= 100000)
            bad(flag, text, fmt::format("'{}' has more than 100000 values", item));
        for (unsigned v = from; v <= to; v += step) {
            out.push_back(v);
            if (to - v < step)
                break;
        }
    }
    return out;
}

std::vector<double> parse_number_grid(const std::string& flag, const std::string& text)
{
    std::vector<double> out;
    for (const std::string& item : split(text, ',')) {
        const auto v = parse_real(item);
        if (!v || *v < 0)
            bad(flag, text, fmt::format("'{}' is not a number >= 0", item));
        out.push_back(*v);
    }
    return out;
}

std::vector<std::string> parse_name_list(const std::string& flag, const std::string& text, char sep)
{
    std::vector<std::string> out = split(text, sep);
    for (const std::string& s : out)
        if (s.empty())
            bad(flag, text, "an empty entry");
    return out;
}

std::vector<std::string> parse_arms(const std::string& text)
{
    std::vector<std::string> out = parse_name_list("--arms", text);
    for (std::string& a : out) {
        if (a == "auto" || a == "global")
            continue;
        if (a.rfind("presize:", 0) == 0) {
            const auto n = whole<unsigned>(a.substr(8));
            if (n && *n >= 2 && *n <= max_sweep_presize && std::has_single_bit(*n)) {
                a = "presize:" + std::to_string(*n);  // one spelling: presize:0512 is presize:512
                continue;
            }
        }
        bad("--arms", text, fmt::format("'{}': expected auto, global or presize:N (N a power of two from 2 to {})", a, max_sweep_presize));
    }
    return out;
}

std::vector<bool> parse_prechecks(const std::string& text)
{
    std::vector<bool> out;
    for (const std::string& s : parse_name_list("--precheck", text)) {
        if (s != "off" && s != "on")
            bad("--precheck", text, fmt::format("'{}': expected off or on", s));
        out.push_back(s == "on");
    }
    return out;
}

shard_spec parse_shard(const std::string& text)
{
    const auto parts = split(text, '/');
    const auto k = parts.size() == 2 ? whole<unsigned>(parts[0]) : std::nullopt;
    const auto n = parts.size() == 2 ? whole<unsigned>(parts[1]) : std::nullopt;
    if (!k || !n || *n == 0 || *k == 0 || *k > *n)
        bad("--shard", text, "expected K/N with 1 <= K <= N");
    return {*k, *n};
}

// How many runs of [from, to) shard K/N owns: those whose index is K-1
// modulo N.
std::size_t owned_in(std::size_t from, std::size_t to, const shard_spec& shard)
{
    const auto below = [&](std::size_t end) {
        return end > shard.k - 1 ? (end - shard.k) / shard.n + 1 : 0;
    };
    return below(to) - below(from);
}

// How many cells the shard owns a run of: every cell when N <= --runs,
// else counted (a cell of R runs then holds at most one owned run).
std::size_t cells_owned(const sweep_grid& g, std::size_t total, const shard_spec& shard)
{
    if (shard.n <= g.runs)
        return total / g.runs;
    std::set<std::size_t> cells;
    for (std::size_t i = shard.k - 1; i < total; i += shard.n)
        cells.insert(i / g.runs);
    return cells.size();
}

}  // namespace futexsim::cli
