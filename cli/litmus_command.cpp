// `futexsim litmus`: litmus tests (the kernel's tools/memory-model format,
// or this project's compact list) run on the explorer under a memory model:
// whether each test's `exists` clause can hold, against what the file says
// to expect (sim/explore/litmus/, docs/testing.md "Weak memory").
#include <fmt/format.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/input_file.h"
#include "cli/numbers.h"
#include "sim/explore/litmus/litmus_run.h"
#include "sim/explore/litmus/litmus_test.h"

namespace futexsim::cli {

namespace {

using namespace sim::explore;

struct litmus_args {
    std::vector<std::string> files;
    std::vector<std::string> memory{"tso", "arm64"};
    std::uint64_t max_executions = 2'000'000;
};

// A compact list has a line `test NAME`; anything else is read as one
// kernel litmus file. A kernel file outside the subset is skipped with the
// reason in `skipped` (a directory of them has several); a list must be
// read whole.
std::vector<litmus_test> read_tests(const std::string& path, std::string& skipped)
{
    const std::string text = read_input_file("litmus", path, std::size_t{1} << 20);
    std::string error;
    const bool list = text.rfind("test ", 0) == 0 || text.find("\ntest ") != std::string::npos;
    if (list) {
        auto tests = parse_litmus_list(text, &error);
        if (!tests)
            throw usage_error(fmt::format("litmus: {}: {}", path, error));
        return *tests;
    }
    auto t = parse_kernel_litmus(text, &error);
    if (!t) {
        skipped = error;
        return {};
    }
    return {*t};
}

int run(const litmus_args& a)
{
    std::vector<memory_model> models;
    for (const std::string& m : a.memory) {
        const auto parsed = parse_memory_model(m);
        if (!parsed)
            throw usage_error(fmt::format("--memory '{}': expected sc, tso or arm64", m));
        models.push_back(*parsed);
    }
    std::vector<litmus_test> tests;
    std::vector<std::string> skipped;
    for (const std::string& f : a.files) {
        std::string why;
        for (litmus_test& t : read_tests(f, why))
            tests.push_back(std::move(t));
        if (!why.empty())
            skipped.push_back(fmt::format("skipped {}: {}", f, why));
    }
    if (tests.empty())
        throw usage_error(
            fmt::format("litmus: no test in the subset the explorer runs ({})", skipped.front()));
    unsigned differs = 0;
    print_line(fmt::format("{:<56} {:<6} {:<10} {:<10} {:<10} {}", "test", "memory", "found",
                           "expected", "lkmm", "executions"));
    for (const litmus_test& t : tests)
        for (const memory_model m : models) {
            const litmus_verdict v = run_litmus(t, m, a.max_executions);
            const auto& want = t.expect[static_cast<std::size_t>(m)];
            const auto& gap = t.gap[static_cast<std::size_t>(m)];
            std::string note;
            if (!v.complete)
                note = "  incomplete: --max-executions reached";
            else if (want && v.result != *want)
                note = gap ? "  known gap: " + *gap : "  DIFFERS";
            differs += v.complete && want && v.result != *want && !gap;
            print_line(fmt::format("{:<56} {:<6} {:<10} {:<10} {:<10} {}{}", t.name,
                                   memory_model_name(m),
                                   v.complete ? litmus_result_name(v.result) : "?",
                                   want ? litmus_result_name(*want) : "-",
                                   t.lkmm ? litmus_result_name(*t.lkmm) : "-", v.executions, note));
        }
    for (const std::string& line : skipped)
        print_line(line);
    check_output();
    return differs ? 1 : 0;
}

}  // namespace

void register_litmus(CLI::App& app)
{
    auto a = std::make_shared<litmus_args>();
    CLI::App* sub = app.add_subcommand("litmus", "Run litmus tests on the explorer under a memory "
                                                 "model: can each test's exists clause hold?");
    sub->add_option(
           "files", a->files,
           "Litmus files: the kernel's format (tools/memory-model/litmus-tests/*.litmus) or "
           "this project's list (tests/explore/litmus/ports.txt)")
        ->required()
        ->check(readable_file());
    sub->add_option("--memory", a->memory, "Memory models, comma-separated: sc, tso, arm64")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->capture_default_str();
    sub->add_option("--max-executions", a->max_executions,
                    "Give up on a test after this many executions")
        ->transform(whole_number(1, std::numeric_limits<std::uint64_t>::max()))
        ->capture_default_str();
    sub->footer(
        "Every schedule of the test's threads (one CPU each) and every store-buffer drain and\n"
        "arm64 load value is explored, with sleep sets and no preemption bound. `found` is\n"
        "Sometimes when the exists clause held in some execution. `expected` is the file's\n"
        "`expect` line for that model (a compact list), `lkmm` the Linux-kernel memory model's\n"
        "Result from the file's header. The subset: straight-line code of READ_ONCE, WRITE_ONCE,\n"
        "acquire/release, rcu_dereference/rcu_assign_pointer, atomics, cmpxchg, xchg, the smp_*\n"
        "barriers, spin_lock/unlock, rcu_read_lock/unlock and synchronize_rcu; a test with `if`\n"
        "or plain C accesses is skipped, with the statement it could not read. Exit status 1\n"
        "when a test differs from its expectation (a known gap does not count), 2 for bad input.");
    add_command(sub, [a] { return run(*a); });
}

}  // namespace futexsim::cli
