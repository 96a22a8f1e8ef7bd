// Merging and checking a sweep's result files for `futexsim report`
// (cli/report_merge.h).
#include "cli/report_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/sweep_grid.h"
#include "cli/sweep_line.h"
#include "run/plural.h"

namespace futexsim::cli {

namespace {

std::string warning_kind(const std::string& w)
{
    for (const auto& k : warning_kinds)
        if (w.rfind(k + ": ", 0) == 0)
            return k;
    return "other";
}

// Divisors of n in increasing order: the runs per cell a grid of n runs
// can have.
std::vector<std::size_t> divisors(std::size_t n)
{
    std::vector<std::size_t> lo, hi;
    for (std::size_t d = 1; d <= n / d; d++)
        if (n % d == 0) {
            lo.push_back(d);
            if (d != n / d)
                hi.push_back(n / d);
        }
    lo.insert(lo.end(), hi.rbegin(), hi.rend());
    return lo;
}

// A sweep gives run k of every cell the seed --seed + k: one first seed
// must fit every line (the most common one is taken as the sweep's, and
// the first line that disagrees is named).
void check_seeds(const std::map<std::size_t, json>& lines,
                 const std::vector<std::pair<std::string, std::size_t>>& line_of_run,
                 std::size_t runs_per_cell)
{
    std::map<std::uint64_t, std::size_t> votes;  // first seed -> lines that imply it
    auto first_seed = [&](std::size_t run_index) {
        return lines.at(run_index).at("run").at("seed").get<std::uint64_t>() -
               run_index % runs_per_cell;
    };
    for (const auto& [where, run_index] : line_of_run)
        votes[first_seed(run_index)]++;
    const std::uint64_t seed =
        std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
            return a.second < b.second;
        })->first;
    for (const auto& [where, run_index] : line_of_run)
        if (first_seed(run_index) != seed)
            throw usage_error(
                fmt::format("{}: 'run'.'seed' = {}, but run {} of this sweep has seed {} (its "
                            "other runs start at seed {}; a "
                            "file edited by hand?)",
                            where, lines.at(run_index).at("run").at("seed").get<std::uint64_t>(),
                            run_index, seed + run_index % runs_per_cell, seed));
}

}  // namespace

// The cell's field for runs that warned of `kind`: warned_rcu_stall, ...
std::string warned_key(std::string kind)
{
    std::replace(kind.begin(), kind.end(), '-', '_');
    return "warned_" + kind;
}

merged read_files(const std::vector<std::string>& files)
{
    merged m;
    std::map<std::size_t, json> seen;                  // run index -> its line, for duplicates
    std::map<std::size_t, std::size_t> cell_of_run;    // run index -> cell index
    std::map<std::string, std::size_t> index_of_cell;  // a cell's parameters -> its index
    std::vector<std::pair<std::string, std::size_t>>
        line_of_run;  // where each run is, in file order
    for (const auto& path : files) {
        const std::string text = read_input_file("report", path);
        if (!text.empty() && text.back() != '\n')
            throw usage_error(
                fmt::format("{}: the last line is cut short (a sweep killed mid-write? run the "
                            "sweep again to resume it)",
                            path));
        for_each_line(text, text.size(), [&](std::size_t line_no, const std::string& line) {
            const std::string where = fmt::format("{} line {}", path, line_no);
            json j;
            try {
                j = parse_sweep_line(line);
            } catch (const std::invalid_argument& e) {
                throw usage_error(fmt::format("{}: {}", where, e.what()));
            }
            const std::string id = j.at("grid_id").get<std::string>();
            const auto grid_runs = j.at("grid_runs").get<std::size_t>();
            if (m.grid_id.empty()) {
                m.grid_id = id;
                m.grid_runs = grid_runs;
            } else if (id != m.grid_id) {
                throw usage_error(
                    fmt::format("{}: a different sweep (grid {}) than the first file's (grid {}); "
                                "report one sweep (and its shards) at a time",
                                where, id, m.grid_id));
            } else if (grid_runs != m.grid_runs) {
                throw usage_error(fmt::format("{}: 'grid_runs' = {}, but grid {} has {} runs",
                                              where, grid_runs, id, m.grid_runs));
            }
            const auto run_index = j.at("run_index").get<std::size_t>();
            if (const auto s = seen.find(run_index); s != seen.end()) {
                if (s->second != j)
                    throw usage_error(
                        fmt::format("{}: run {} is already in with other content (a file edited "
                                    "by hand, or two sweeps?)",
                                    where, run_index));
                return;  // overlapping shards: the run is the same run
            }
            seen[run_index] = j;
            const auto ci = j.at("cell_index").get<std::size_t>();
            const std::string cell_key = j.at("cell").dump();
            if (const auto c = m.cells.find(ci);
                c != m.cells.end() && c->second.params != j.at("cell"))
                throw usage_error(fmt::format(
                    "{}: cell {} has other parameters than on an earlier line", where, ci));
            if (const auto k = index_of_cell.find(cell_key);
                k != index_of_cell.end() && k->second != ci)
                throw usage_error(
                    fmt::format("{}: cell {} has the parameters of cell {}", where, ci, k->second));
            index_of_cell[cell_key] = ci;
            cell_of_run[run_index] = ci;
            line_of_run.emplace_back(where, run_index);
            cell_stats& c = m.cells[ci];
            c.index = ci;
            c.params = j.at("cell");
            const json& run = j.at("run");
            const std::string outcome = run.at("outcome").get<std::string>();
            c.runs++;
            c.latched += outcome == "latched";
            c.transient += outcome == "transient";
            c.never += outcome == "never";
            c.mops.push_back(run.at("mops").get<double>());
            if (run.contains("warnings") && run.at("warnings").is_array() &&
                !run.at("warnings").empty()) {
                c.warned++;
                std::map<std::string, bool> kinds;
                for (const auto& w : run.at("warnings"))
                    kinds[warning_kind(w.is_string() ? w.get<std::string>() : "")] = true;
                for (const auto& [k, yes] : kinds)
                    c.warned_of[k]++;
            }
            m.runs++;
        });
    }
    if (m.runs == 0)
        throw usage_error("no sweep results in the files given");
    // A sweep's run i is in cell i / R for the grid's R runs per cell: some
    // R that divides the grid's runs must fit every line.
    bool fits = false;
    std::size_t runs_per_cell = 0;
    for (const std::size_t r : divisors(m.grid_runs)) {
        fits = std::all_of(cell_of_run.begin(), cell_of_run.end(),
                           [r](const auto& rc) { return rc.first / r == rc.second; });
        if (fits) {
            runs_per_cell = r;
            break;
        }
    }
    if (!fits)
        throw usage_error(
            fmt::format("grid {}: the lines' cell_index and run_index do not fit one grid of {} "
                        "runs (a file edited by hand?)",
                        m.grid_id, m.grid_runs));
    check_seeds(seen, line_of_run, runs_per_cell);
    return m;
}

}  // namespace futexsim::cli
