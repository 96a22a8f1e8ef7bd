// The machine presets are JSON files (machine/presets/) read by the
// machine-file parser: each still gives exactly the machine the C++ preset
// it replaced gave, and every parameter says where it comes from.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "machine/embedded_presets.h"
#include "machine/machine.h"
#include "tests/machine/machine_describe.h"

using namespace futexsim;

// Every field of each preset (describe()), fingerprinted when the JSON
// files replaced the C++ presets of sim/machine.cpp: the test that
// compared the two field by field (commit 290c9a8, tests/machine/)
// printed these. A preset's numbers change only on purpose: then its
// fingerprint here changes in the same commit, and the figures recorded
// on that machine are re-run. All three changed when describe() gained
// `modified_read` (2026-12-01); of the values, only epyc-9r45's moved
// (`share` to `migrate`, measured on a Zen 5 host).
TEST_CASE("each JSON preset is the C++ preset it replaced, field by field", "[machine]")
{
    CHECK(test::fingerprint(load_machine_preset("xeon-6975p-snc3")) == 0x46e7132c8b121e86ull);
    CHECK(test::fingerprint(load_machine_preset("epyc-9r45")) == 0xd52ca0e3c3b2f8b9ull);
    CHECK(test::fingerprint(load_machine_preset("graviton4")) == 0x95f9b8612b9324a4ull);
}

TEST_CASE("every parameter of every preset names its source", "[machine]")
{
    for (const auto& p : embedded_machine_presets()) {
        INFO(p.name);
        const auto j = nlohmann::json::parse(p.json);
        CHECK(j.at("name") == p.name);
        const auto& sources = j.at("sources");
        for (const auto& [key, value] : j.items()) {
            if (key == "name" || key == "description" || key == "sources")
                continue;
            if (key == "transfer_ns") {
                for (const auto& [sub, _] : value.items())
                    CHECK(sources.contains("transfer_ns." + sub));
                continue;
            }
            INFO(key);
            CHECK(sources.contains(key));
        }
        // Left out so that the parser takes the kernel's default, and said so.
        CHECK_FALSE(j.contains("rcu_fqs_jiffies"));
        CHECK(sources.contains("rcu_fqs_jiffies"));
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
