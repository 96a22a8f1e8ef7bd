// docs/extending.md's worked workload and machine preset, as the page shows
// them: tests/CMakeLists.txt takes each block marked `<!-- example: FILE -->`
// out of the page at configure time into doc_examples/, and this test
// builds and runs them, so the page cannot drift from the code.
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "machine/embedded_presets.h"
#include "machine/machine.h"
#include "run/workloads/registry.h"
#include "sim/timed/run.h"
#include "tests/machine/preset_checks.h"
#include "tests/run/parse_workload_flags.h"
#include "tests/run/small_xeon_run.h"

namespace futexsim {
workload_def wake_burst_workload();  // doc_examples/wake_burst.cpp
}

using namespace futexsim;

namespace {

void register_wake_burst()
{
    static const bool registered = [] {
        register_workload(wake_burst_workload());
        return true;
    }();
    (void)registered;
}

std::string example_text(const std::string& name)
{
    std::ifstream in(std::string(FUTEXSIM_DOC_EXAMPLES) + "/" + name);
    REQUIRE(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("extending.md's wake-burst workload runs, and its flag is taken and checked", "[docs]")
{
    register_wake_burst();
    run_options o = test::small_xeon_run("wake-burst", 0.002);
    o.params.set("burst", "1");
    const run_result one = sim::simulate(o);
    o.params.set("burst", "64");
    const run_result many = sim::simulate(o);
    CHECK(one.ops > 0);
    // A 50 us pause per burst: longer bursts, more wakes in the same time.
    CHECK(many.ops > 4 * one.ops);
    CHECK(many.ref_get_percpu + many.ref_get_atomic >= many.ops);  // each wake took a reference

    const auto parse = test::parse_workload_flags;
    CHECK(*parse({"--burst", "16"}, "wake-burst").params.find("burst") == "16");
    CHECK_THROWS_AS(parse({"--burst", "0"}, "wake-burst"), CLI::ValidationError);
    CHECK_THROWS_WITH(parse({"--burst", "4"}, "mutex"), "--burst does not apply to workload 'mutex'");
}

TEST_CASE("extending.md's machine preset parses, sets what a shipped preset sets, and sources it all", "[docs]")
{
    const std::string text = example_text("xeon-6960p-1s.json");
    const machine m = parse_machine_json(text, "xeon-6960p-1s.json");
    CHECK(m.name == "xeon-6960p-1s");
    CHECK(m.num_cpus() == 144);  // 3 dies x 24 cores x 2 threads

    const auto j = nlohmann::json::parse(text);
    test::check_preset_sources(j);
    // Every parameter a shipped preset sets, the example sets too.
    const auto shipped = nlohmann::json::parse(embedded_machine_presets().front().json);
    for (const auto& [key, _] : shipped.items()) {
        INFO(key);
        CHECK(j.contains(key));
    }

    run_options o;
    o.mach = m;
    o.workload = "wake-nowaiters";
    o.threads = 4;
    o.seconds = 0.002;
    CHECK(sim::simulate(o).ops > 0);
}
