#include "cli/sweep_line.h"

#include <fmt/format.h>

#include <algorithm>
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
    if (!r.contains("ops") || !r.at("ops").is_number_unsigned())
        bad(fmt::format("'run'.'ops' = {} is not a whole number",
                        r.contains("ops") ? r.at("ops").dump() : "(none)"));
    if (!r.contains("seconds") || !r.at("seconds").is_number() ||
        !(r.at("seconds").get<double>() > 0))
        bad(fmt::format("'run'.'seconds' = {} is not a number > 0",
                        r.contains("seconds") ? r.at("seconds").dump() : "(none)"));
    if (!r.contains("seed") || !r.at("seed").is_number_unsigned())
        bad("'run'.'seed' must be a whole number");
    if (r.contains("warnings") && (!r.at("warnings").is_array() ||
                                   !std::all_of(r.at("warnings").begin(), r.at("warnings").end(),
                                                [](const json& w) { return w.is_string(); })))
        bad(fmt::format("'run'.'warnings' = {} is not a list of texts", r.at("warnings").dump()));
    // A sweep writes whole runs only: one cut short is dropped and run again.
    if (r.contains("interrupted") && r.at("interrupted") != false)
        bad(fmt::format("'run'.'interrupted' = {}: a sweep keeps only whole runs",
                        r.at("interrupted").dump()));
    // The throughput is the operations over the run's time (an extrapolated
    // run's ops are extrapolated too), to the digits JSON keeps.
    const double mops = r.at("mops").get<double>();
    const double expect =
        static_cast<double>(r.at("ops").get<std::uint64_t>()) / r.at("seconds").get<double>() / 1e6;
    if (std::fabs(mops - expect) > 1e-9 * std::max(1.0, expect))
        bad(fmt::format("'run'.'mops' = {} is not 'ops' / 'seconds' ({} Mops/s)", mops, expect));
}

// What the run says of itself must be its cell's: the same policy,
// workload, kernel, threads, precheck and length; the same preset (a
// machine file's runs carry the name inside the file).
void check_run_in_cell(const json& r, const json& c)
{
    for (const char* k : {"policy", "workload", "kernel", "threads", "precheck"})
        if (!r.contains(k) || r.at(k) != c.at(k))
            bad(fmt::format("'run'.'{}' = {}, but its cell's is {}", k,
                            r.contains(k) ? r.at(k).dump() : "(none)", c.at(k).dump()));
    // A fixed amount of work (mutex --ops) ends the run when it is done.
    const double seconds = r.at("seconds").get<double>();
    const double cell_seconds = c.at("seconds").get<double>();
    const bool finished_work = r.contains("work_ms") && r.at("work_ms").is_number();
    if (finished_work ? seconds > cell_seconds : r.at("seconds") != c.at("seconds"))
        bad(fmt::format("'run'.'seconds' = {}, but its cell's is {}{}", r.at("seconds").dump(),
                        c.at("seconds").dump(),
                        finished_work ? " (a run's work ends it no later)" : ""));
    const std::string machine = c.at("machine").get<std::string>();
    if (machine.rfind("file:", 0) != 0 && (!r.contains("machine") || r.at("machine") != machine))
        bad(fmt::format("'run'.'machine' = {}, but its cell's is \"{}\"",
                        r.contains("machine") ? r.at("machine").dump() : "(none)", machine));
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
    check_run_in_cell(j.at("run"), j.at("cell"));
    return j;
}

}  // namespace futexsim::cli
