// The machine presets are JSON files (machine/presets/) read by the
// machine-file parser: each gives exactly the machine recorded for it, and
// every parameter says where it comes from, none fitted to an outcome.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "machine/embedded_presets.h"
#include "machine/machine.h"
#include "tests/machine/machine_describe.h"
#include "tests/machine/preset_checks.h"

using namespace futexsim;

// Every field of each preset (describe()), fingerprinted. A preset's numbers
// change only on purpose: then its fingerprint here changes in the same
// commit, which says why, and the figures recorded on that machine are
// re-run.
TEST_CASE("each preset's every field is as recorded", "[machine]")
{
    CHECK(test::fingerprint(load_machine_preset("xeon-6975p-snc3")) == 0x5cae47db92566e48ull);
    CHECK(test::fingerprint(load_machine_preset("epyc-9r45")) == 0x6f98374c034a2f8dull);
    CHECK(test::fingerprint(load_machine_preset("graviton4")) == 0x0f697d0a6cf53b41ull);
}

// No preset value was set to make an outcome come out right: each is
// published, measured or assumed (and then varied by futexsim sensitivity).
TEST_CASE("no preset parameter is fitted", "[machine]")
{
    for (const auto& p : embedded_machine_presets()) {
        const auto j = nlohmann::json::parse(p.json);
        for (const auto& [key, value] : j.at("sources").items()) {
            INFO(p.name << ": " << key << ": " << value.get<std::string>());
            CHECK(value.get<std::string>().rfind("fitted:", 0) != 0);
        }
    }
}

TEST_CASE("every parameter of every preset names its source", "[machine]")
{
    for (const auto& p : embedded_machine_presets()) {
        INFO(p.name);
        const auto j = nlohmann::json::parse(p.json);
        CHECK(j.at("name") == p.name);
        test::check_preset_sources(j);
    }
}

TEST_CASE("a machine file's sources name parameters and a kind of provenance", "[machine]")
{
    const std::string topology =
        R"("topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 2, "threads_per_core": 1})";
    const auto parse = [&](const std::string& sources) {
        return parse_machine_json("{" + topology + R"(, "sources": )" + sources + "}", "test");
    };
    CHECK(parse(R"({"hz": "assumed: Debian", "transfer_ns.same_die": "measured: here"})").num_cpus() == 2);
    CHECK_THROWS_WITH(parse(R"({"hz": "a guess"})"), Catch::Contains("published:, measured:, fitted: or assumed:"));
    CHECK_THROWS_WITH(parse(R"({"hz": 3})"), Catch::Contains("'sources'.'hz' must be a text"));
    CHECK_THROWS_WITH(parse(R"({"speed": "assumed: fast"})"), Catch::Contains("'speed', which is no parameter"));
    CHECK_THROWS_WITH(parse(R"({"transfer_ns.far": "assumed: x"})"), Catch::Contains("no parameter"));
    CHECK_THROWS_WITH(parse(R"(["hz"])"), Catch::Contains("'sources' must be an object"));
}

TEST_CASE("a machine file's kernel costs: the fitted step is refused, entry and exit one way or the other",
          "[machine]")
{
    const std::string topology =
        R"("topology": {"sockets": 1, "dies_per_socket": 1, "nodes_per_socket": 1, "cores_per_die": 2, "threads_per_core": 1})";
    const auto parse = [&](const std::string& fields) {
        return parse_machine_json("{" + topology + ", " + fields + "}", "test");
    };
    CHECK_THROWS_WITH(parse(R"("kernel_step_ns": 10)"), Catch::Contains("no longer a parameter"));
    CHECK_THROWS_WITH(parse(R"("kernel_sites_cpu": "xeon-6975p", "syscall_entry_ns": 20)"),
                      Catch::Contains("not both"));
    CHECK_THROWS_WITH(parse(R"("kernel_sites_cpu": "pentium")"), Catch::Contains("counted: xeon-6975p, epyc-9r45"));
    CHECK_THROWS_WITH(parse(R"("arch": "arm64-lse", "kernel_sites_cpu": "xeon-6975p")"),
                      Catch::Contains("counted: graviton4"));
    const machine m = parse(R"("kernel_sites_cpu": "graviton4", "arch": "arm64-lse", "core_ghz": 2, "kernel_cpi": 1,
                                "syscall_insn_cycles": 0)");
    CHECK(m.syscall_entry_instructions == 658);
    CHECK(m.syscall_entry_cost_ns() == Approx(329));
    CHECK(m.syscall_exit_cost_ns() == Approx(51));
}
