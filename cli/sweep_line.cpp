#include "cli/sweep_line.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "cli/input_file.h"
#include "cli/sweep_grid.h"

namespace futexsim::cli {

namespace {

using json = nlohmann::ordered_json;

[[noreturn]] void bad(const std::string& why)
{
    throw std::invalid_argument(why);
}

std::uint64_t whole_field(const json& j, const char* key)
{
    if (!j.contains(key))
        bad(fmt::format("no '{}'", key));
    if (!j.at(key).is_number_unsigned())
        bad(fmt::format("'{}' = {} is not a whole number", key, j.at(key).dump()));
    return j.at(key).get<std::uint64_t>();
}

void text_field(const json& j, const char* where, const char* key)
{
    if (!j.contains(key) || !j.at(key).is_string())
        bad(fmt::format("'{}'.'{}' must be a text", where, key));
}

void check_cell(const json& c)
{
    if (!c.is_object())
        bad(fmt::format("'cell' = {} is not an object", c.dump()));
    for (const char* k : {"machine", "policy", "workload", "kernel", "cpus", "arm"})
        text_field(c, "cell", k);
    if (!c.contains("precheck") || !c.at("precheck").is_boolean())
        bad("'cell'.'precheck' must be true or false");
    for (const char* k : {"ramp_ms", "seconds"})
        if (!c.contains(k) || !c.at(k).is_number() || !(c.at(k).get<double>() >= 0))
            bad(fmt::format("'cell'.'{}' must be a number >= 0", k));
    if (!c.contains("threads") || !c.at("threads").is_number_unsigned() || c.at("threads").get<std::uint64_t>() < 1 ||
        c.at("threads").get<std::uint64_t>() > 4096)
        bad("'cell'.'threads' must be a whole number from 1 to 4096");
}

void check_run(const json& r)
{
    if (!r.is_object())
        bad(fmt::format("'run' = {} is not an object", r.dump()));
    if (!r.contains("outcome") || !r.at("outcome").is_string() || !is_run_outcome(r.at("outcome").get<std::string>()))
        bad(fmt::format("'run'.'outcome' = {} is not latched, transient or never",
                        r.contains("outcome") ? r.at("outcome").dump() : "(none)"));
    if (!r.contains("mops") || !r.at("mops").is_number() || !std::isfinite(r.at("mops").get<double>()) ||
        r.at("mops").get<double>() < 0)
        bad(fmt::format("'run'.'mops' = {} is not a number >= 0", r.contains("mops") ? r.at("mops").dump() : "(none)"));
}

}  // namespace

bool is_run_outcome(const std::string& s)
{
    return s == "latched" || s == "transient" || s == "never";
}

json parse_sweep_line(const std::string& line)
{
    if (json_nesting_depth(line) > max_sweep_line_depth)
        bad(fmt::format("nested more than {} levels deep", max_sweep_line_depth));
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("sweep_version"))
        bad("not a sweep result line");
    if (j.at("sweep_version") != sweep_format_version)
        bad(fmt::format("sweep format version {}, this futexsim reads {}", j.at("sweep_version").dump(),
                        sweep_format_version));
    if (!j.contains("grid_id") || !j.at("grid_id").is_string())
        bad("'grid_id' must be a text");
    const std::uint64_t grid_runs = whole_field(j, "grid_runs");
    const std::uint64_t run_index = whole_field(j, "run_index");
    whole_field(j, "cell_index");
    if (run_index >= grid_runs)
        bad(fmt::format("'run_index' = {} is outside the grid's {} runs", run_index, grid_runs));
    if (!j.contains("cell"))
        bad("no 'cell'");
    check_cell(j.at("cell"));
    if (j.contains("machine_file_hash") && !j.at("machine_file_hash").is_string())
        bad("'machine_file_hash' must be a text");
    if (!j.contains("run"))
        bad("no 'run'");
    check_run(j.at("run"));
    return j;
}

}  // namespace futexsim::cli
