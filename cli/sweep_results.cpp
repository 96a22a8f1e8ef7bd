// `futexsim sweep`'s results file: the line of a run, and the check of
// what a file holds before a resume (cli/sweep_results.h).
#include "cli/sweep_results.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/sweep_line.h"

namespace futexsim::cli {

namespace {

// Where a run sits in the sweep: everything of its line but "run".
nlohmann::ordered_json result_head(const sweep_grid& g, std::size_t run_index)
{
    nlohmann::ordered_json j;
    const sweep_cell c = cell_at(g, run_index / g.runs);
    j["sweep_version"] = sweep_format_version;
    j["grid_id"] = g.id();
    j["grid_runs"] = g.run_count();
    j["run_index"] = run_index;
    j["cell_index"] = c.index;
    j["cell"] = {{"machine", c.machine}, {"policy", c.policy}, {"workload", c.workload},
                 {"kernel", c.kernel},   {"cpus", c.cpus},     {"precheck", c.precheck},
                 {"ramp_ms", c.ramp_ms}, {"arm", c.arm},       {"threads", c.threads},
                 {"seconds", g.seconds}};
    // What the cell's machine file held when the run was made (a preset has none).
    if (const std::string h = g.machine_hash(c.machine); !h.empty())
        j["machine_file_hash"] = h;
    return j;
}

// A line of --out with another grid id than this sweep's: which machine
// file changed since, when that is the only difference (the grid's id with
// the hashes the lines recorded is the lines' id), else another sweep.
// "a.json", "a.json,b.json" or "a.json,b.json and 17 more".
std::string some_files(const std::vector<std::string>& files)
{
    if (files.size() <= 2)
        return fmt::format("{}", fmt::join(files, ","));
    return fmt::format("{},{} and {} more", files[0], files[1], files.size() - 2);
}

[[noreturn]] void refuse_other_grid(const std::string& path, const sweep_grid& g,
                                    const std::string& line_id,
                                    const std::map<std::string, std::string>& recorded)
{
    sweep_grid then = g;
    std::vector<std::string> changed, unrecorded;
    for (std::size_t i = 0; i < g.machines.size(); i++) {
        if (g.machine_hashes[i].empty())
            continue;  // a preset
        const auto r = recorded.find(g.machines[i]);
        if (r == recorded.end() && recorded.empty()) {
            // Lines from before the id covered machine files' content.
            then.machine_hashes[i].clear();
            unrecorded.push_back(g.machines[i].substr(5));
        } else if (r != recorded.end() && r->second != g.machine_hashes[i]) {
            then.machine_hashes[i] = r->second;
            changed.push_back(g.machines[i].substr(5));
        }
    }
    if (then.id() == line_id && !changed.empty())
        throw usage_error(fmt::format(
            "--machine-file {}: changed since the runs in --out {} were made (grid {}, now "
            "{}): its runs would mix two machines; restore the file or use another --out",
            some_files(changed), path, line_id, g.id()));
    if (then.id() == line_id && !unrecorded.empty())
        throw usage_error(fmt::format(
            "--out {}: written before a sweep recorded its machine files' content (grid {}, "
            "now {}), so its runs cannot be checked against --machine-file {}; use another "
            "file",
            path, line_id, g.id(), some_files(unrecorded)));
    throw usage_error(
        fmt::format("--out {} holds another sweep (grid {}, this one is {}); use another file",
                    path, line_id, g.id()));
}

}  // namespace

// The run's own JSON plus where it sits in the sweep.
std::string result_line(const sweep_grid& g, std::size_t run_index, const std::string& run_json)
{
    nlohmann::ordered_json j = result_head(g, run_index);
    j["run"] = nlohmann::ordered_json::parse(run_json);
    return j.dump();
}

// What --out already holds: the run indices done, after dropping a last
// line cut short by an interruption.
std::set<std::size_t> load_done(const std::string& path, const sweep_grid& g)
{
    std::set<std::size_t> done;
    if (!path_exists(path))
        return done;
    const std::string text = read_input_file("--out", path);
    const std::size_t keep =
        text.empty() || text.back() == '\n' ? text.size() : text.rfind('\n') + 1;
    std::vector<std::pair<std::size_t, nlohmann::ordered_json>> lines;  // line number, line
    for_each_line(text, keep, [&](std::size_t line_no, const std::string& line) {
        try {
            lines.emplace_back(line_no, parse_sweep_line(line));
        } catch (const std::invalid_argument& e) {
            throw usage_error(
                fmt::format("--out {}: line {}: {}; use another file", path, line_no, e.what()));
        }
    });
    // What each machine file held when its runs were made.
    std::map<std::string, std::string> recorded;
    for (const auto& [no, j] : lines)
        if (j.contains("machine_file_hash"))
            recorded[j.at("cell").at("machine").get<std::string>()] =
                j.at("machine_file_hash").get<std::string>();
    for (const auto& [no, j] : lines) {
        if (j.at("grid_id") != g.id())
            refuse_other_grid(path, g, j.at("grid_id").get<std::string>(), recorded);
        // The same grid id: the line must be what this sweep would write
        // for its run, but for the run's own result.
        const auto run_index = j.at("run_index").get<std::size_t>();
        nlohmann::ordered_json expect = result_head(g, run_index);
        expect["run"] = j.at("run");
        if (j != expect)
            throw usage_error(fmt::format(
                "--out {}: line {} does not match run {} of this grid (edited by hand?); "
                "use another file",
                path, no, run_index));
        if (const std::uint64_t seed = g.seed + run_index % g.runs; j.at("run").at("seed") != seed)
            throw usage_error(fmt::format(
                "--out {}: line {}: 'run'.'seed' = {}, but run {} of this grid has seed {} "
                "(edited by hand?); use another file",
                path, no, j.at("run").at("seed").dump(), run_index, seed));
        if (done.count(run_index))
            throw usage_error(fmt::format("--out {}: line {}: run {} is in twice; use another file",
                                          path, no, run_index));
        done.insert(run_index);
    }
    if (keep != text.size()) {
        // The half-written line of an interrupted run.
        std::error_code ec;
        std::filesystem::resize_file(path, keep, ec);
        if (ec)
            throw usage_error(
                fmt::format("--out {}: the last line is cut short and cannot be dropped: {}", path,
                            ec.message()));
    }
    return done;
}

}  // namespace futexsim::cli
