// futexsim-mutants: a test-only build of `futexsim replay` with the
// mutation points on (-DFUTEXSIM_MUTATIONS=1) and the mutant policies
// registered, so that a mutant's shrunk counterexample can be replayed.
// Never installed; normal builds have no mutants in them.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "run/stop_signal.h"

int main(int argc, char** argv)
{
    // As futexsim's main(): SIGINT stops a replay between two steps, with
    // the trace so far printed (exit status 130), instead of killing it.
    futexsim::install_sigint_handler();
    CLI::App app{"futexsim-mutants: `futexsim replay` with the test-only mutants (docs/testing.md)"};
    app.require_subcommand(1);
    futexsim::cli::register_replay(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0)
            return app.exit(e);
        fmt::print(stderr, "futexsim-mutants: error: {}\n", e.what());
        return 2;
    }
    try {
        const int status = futexsim::cli::run_selected(app);
        return status == 0 && futexsim::sigint_received() ? futexsim::cli::interrupted_status : status;
    } catch (const futexsim::cli::interrupted& e) {
        fmt::print(stderr, "futexsim-mutants: interrupted: {}\n", e.what());
        return futexsim::cli::interrupted_status;
    } catch (const futexsim::cli::usage_error& e) {
        fmt::print(stderr, "futexsim-mutants: error: {}\n", e.what());
        return 2;
    }
}
