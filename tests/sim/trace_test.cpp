// `futexsim run --trace`: the trace-event file is well formed (every event
// has ph/ts/pid/tid, every track is named, slices nest per CPU track, all
// within the window), agrees with the run's own figures, and tracing
// changes nothing the run prints.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/report.h"
#include "sim/timed/run.h"
#include "tests/sim/report_compare.h"

using namespace futexsim;
using namespace futexsim::sim;
using futexsim::test::without_wall;
using nlohmann::json;

namespace {

// 16 threads on 16 CPUs for 5 ms: the pool outgrows the hash while the
// threads start, a pivot completes, a grace period passes and FR_ATOMIC
// begins.
run_options traced_run()
{
    run_options o;
    o.mach = load_machine_preset("xeon-6975p-snc3");
    o.threads = 16;
    o.seconds = 0.01;  // long enough for the first grace period to end
    o.cpus = parse_cpu_list("0-15", o.mach.num_cpus());
    return o;
}

sim_options trace_to(std::string path)
{
    sim_options so;
    so.trace_path = std::move(path);
    return so;
}

std::string temp_path(const char* name)
{
    return (std::filesystem::temp_directory_path() /
            (std::string("futexsim_trace_") + std::to_string(::getpid()) + "_" + name + ".json"))
        .string();
}

json load(const std::string& path)
{
    std::ifstream in(path);
    REQUIRE(in);
    json j = json::parse(in);  // throws on malformed JSON
    std::remove(path.c_str());
    return j;
}

struct summary {
    std::map<std::string, int> instants;  // by name
    std::map<std::string, int> counters;  // by name
    std::map<std::string, int> calls;     // system call slices, by name
    std::set<std::pair<int, int>> cpu_tracks_used;
    double min_ts = 1e300, max_ts = -1;
};

// Structure checks; returns what the trace holds.
summary check_structure(const json& j, double window_start_us, double window_end_us)
{
    REQUIRE(j.is_object());
    REQUIRE(j.at("traceEvents").is_array());
    CHECK(j.at("displayTimeUnit") == "ns");
    std::map<std::pair<int, int>, std::string> thread_names;
    std::map<std::pair<int, int>, std::vector<std::string>> stacks;  // open B slices per track
    std::map<std::pair<int, int>, double> last_ts;                   // B/E per track, file order
    summary s;
    for (const json& e : j["traceEvents"]) {
        REQUIRE(e.contains("ph"));
        REQUIRE(e.contains("ts"));
        REQUIRE(e.contains("pid"));
        REQUIRE(e.contains("tid"));
        const std::string ph = e["ph"];
        const double ts = e["ts"];
        const std::pair<int, int> track{e["pid"].get<int>(), e["tid"].get<int>()};
        if (ph == "M") {
            if (e["name"] == "thread_name")
                thread_names[track] = e["args"]["name"];
            continue;
        }
        CHECK(ts >= window_start_us);
        CHECK(ts <= window_end_us);
        s.min_ts = std::min(s.min_ts, ts);
        s.max_ts = std::max(s.max_ts, ts);
        // Every track is named before its first event.
        INFO("event " << e.dump());
        REQUIRE(thread_names.count(track));
        if (ph == "B" || ph == "E" || ph == "X") {
            CHECK(thread_names[track].rfind("CPU ", 0) == 0);
            s.cpu_tracks_used.insert(track);
            // In time order within a track, slices never overlap (to the
            // nanosecond: ts + dur is a sum of decimals).
            CHECK(ts >= last_ts[track] - 0.0005);
            if (ph == "B") {  // a task's slice, at the top level
                CHECK(stacks[track].empty());
                stacks[track].push_back(e["name"]);
                last_ts[track] = ts;
            } else if (ph == "E") {
                REQUIRE(stacks[track].size() == 1u);
                stacks[track].pop_back();
                last_ts[track] = ts;
            } else {  // a system call, inside a task's slice
                CHECK(stacks[track].size() == 1u);
                const double dur = e["dur"];
                CHECK(dur >= 0);
                CHECK(ts + dur <= window_end_us + 0.0005);
                last_ts[track] = ts + dur;
                ++s.calls[e["name"]];
            }
        } else if (ph == "i") {
            ++s.instants[e["name"]];
        } else if (ph == "C") {
            ++s.counters[e["name"]];
            CHECK(e["args"].is_object());
        } else {
            FAIL("unexpected ph " << ph);
        }
    }
    for (const auto& [track, stack] : stacks) {
        INFO("track " << track.second);
        CHECK(stack.empty());  // every slice closed
    }
    return s;
}

}  // namespace

TEST_CASE("run --trace: a well-formed trace that agrees with the run, and the same run", "[trace]")
{
    const std::string path = temp_path("whole");
    const run_result without = simulate(traced_run());
    const run_result with = simulate(traced_run(), trace_to(path));
    // Tracing is observation only.
    CHECK(without_wall(json_line(with)) == without_wall(json_line(without)));
    CHECK(human_line(with) == human_line(without));
    CHECK(with.trace_hash == without.trace_hash);
    CHECK(with.events == without.events);

    const json j = load(path);
    const summary s = check_structure(j, 0, without.seconds * 1e6);
    // The run must show what the trace is for.
    REQUIRE(with.pivots_completed >= 1);
    REQUIRE(with.grace_periods >= 1);
    CHECK(s.instants.at("installed") == static_cast<int>(with.pivots_completed));
    CHECK(s.instants.at("grace period end") == static_cast<int>(with.grace_periods));
    CHECK(s.instants.at("pivot requested") == static_cast<int>(with.pivots_requested));
    CHECK(s.instants.count("FR_ATOMIC"));
    CHECK(s.counters.count("futex_atomic"));
    CHECK(s.counters.count("futex_ref per-CPU sum"));
    CHECK(s.counters.count("references held"));
    CHECK(s.calls.at("FUTEX_WAKE") > 1000);
    CHECK(s.calls.at("clone") == 16);
    CHECK(s.calls.at("prctl GET_SLOTS") == 2);  // the third comes after the threads are joined
    // A CPU track for each CPU a thread ran on, no more.
    CHECK(s.cpu_tracks_used.size() >= 12);
    for (const auto& [pid, tid] : s.cpu_tracks_used)
        CHECK(tid < 16);
}

TEST_CASE("run --trace-window: only what happens inside, slices cut at the edges", "[trace]")
{
    const std::string path = temp_path("window");
    sim_options so = trace_to(path);
    so.trace_start_ms = 1;
    so.trace_end_ms = 2;
    const run_result r = simulate(traced_run(), so);
    const json j = load(path);
    const summary s = check_structure(j, 1000, 2000);
    // Threads were running across both edges: their slices start and end there.
    CHECK(s.min_ts == 1000);
    CHECK(s.max_ts == 2000);
    CHECK(s.instants.count("grace period end") == 0);  // the one grace period ends later
    CHECK(r.grace_periods == 1);
}
