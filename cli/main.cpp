// futexsim: the command line. Subcommands are registered by the files in
// cli/; this file only parses and maps errors to exit status 2.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/stop_signals.h"
#include "run/stop_signal.h"

namespace {
// One line, whatever the message quotes: a newline or other control
// character in a path or a flag's value is written escaped (\n, \x1b),
// so that a script reading the error's one line gets all of it.
// fputs, not fmt::print: with stderr closed (`2>&1 | head`) fmt would throw
// from inside a handler.
void say_error(const std::string& message)
{
    std::string line;
    for (const char ch : message) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n')
            line += "\\n";
        else if (c == '\t')
            line += "\\t";
        else if (c < 0x20 || c == 0x7f)
            line += fmt::format("\\x{:02x}", c);
        else
            line += ch;
    }
    line += '\n';
    std::fputs(line.c_str(), stderr);
}

// Help that did not reach standard output (>/dev/full) is lost: exit 2.
int help_status(int status)
{
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
        say_error(fmt::format("futexsim: error: cannot write the help to standard output"));
        return 2;
    }
    return status;
}

// Opens /dev/null as descriptor `fd` if it is closed (open() takes the
// lowest free number, so the lower ones are plugged first by the caller).
void plug_closed_descriptor(int fd, int flags)
{
    if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
        return;
    const int got = open("/dev/null", flags);
    if (got >= 0 && got != fd) {
        dup2(got, fd);
        close(got);
    }
}
}  // namespace

int main(int argc, char** argv)
{
    // First, so that a SIGINT however early is never fatal: long commands
    // stop at their next safe point and print what they did (exit 130).
    futexsim::install_sigint_handler();
    // SIGTERM and SIGHUP stop a command as SIGINT does (a sweep passes the
    // stop on to its children and waits for them); the status says which.
    futexsim::cli::install_stop_signal_handlers();
    // A closed reader (`futexsim run | head -1`) ends the command quietly.
    futexsim::cli::install_sigpipe_handler();
    // A closed standard output would lose the result; worse, a file opened
    // later would get descriptor 1.
    if (fcntl(STDOUT_FILENO, F_GETFD) < 0) {
        say_error(
            fmt::format("futexsim: error: standard output is closed (the result would be lost)"));
        return 2;
    }
    // A closed standard input or error would be given to the next file
    // opened: a sweep's progress would land in its --out. /dev/null takes
    // their place (what is said on a closed stderr is lost, as the caller asked).
    plug_closed_descriptor(STDIN_FILENO, O_RDONLY);
    plug_closed_descriptor(STDERR_FILENO, O_WRONLY);
    CLI::App app{"futexsim: a model of the Linux private futex hash (v6.17) and its pivot stall.\n"
                 "Run `futexsim <command> --help` for each command's options."};
    app.require_subcommand(1);
    app.set_help_all_flag("--help-all", "Print help for every command");

    futexsim::cli::register_run(app);
    futexsim::cli::register_demo(app);
    futexsim::cli::register_replay(app);
    futexsim::cli::register_calibrate(app);
    futexsim::cli::register_probe(app);
    futexsim::cli::register_sweep(app);
    futexsim::cli::register_report(app);
    futexsim::cli::register_selftests(app);
    futexsim::cli::register_litmus(app);
    futexsim::cli::register_sensitivity(app);

    // An unknown first word would otherwise read as a missing subcommand.
    if (argc > 1 && argv[1][0] != '-') {
        bool known = false;
        std::string names;
        for (const CLI::App* sub : app.get_subcommands({})) {
            known = known || sub->get_name() == argv[1];
            names += (names.empty() ? "" : ", ") + sub->get_name();
        }
        if (!known) {
            say_error(
                fmt::format("futexsim: error: unknown command '{}' (valid: {})", argv[1], names));
            return 2;
        }
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return help_status(app.exit(e));
    } catch (const CLI::CallForAllHelp& e) {
        return help_status(app.exit(e));
    } catch (const CLI::ParseError& e) {
        // One line naming the problem, as for every bad input.
        say_error(fmt::format("futexsim: error: {} (see futexsim --help)", e.what()));
        return 2;
    }

    try {
        const int status = futexsim::cli::run_selected(app);
        futexsim::cli::check_output();
        // A command that finished although SIGINT came still reports it.
        const int stopped =
            status == 0 && futexsim::sigint_received() ? futexsim::cli::interrupted_status : status;
        return stopped == futexsim::cli::interrupted_status ? futexsim::stop_status() : stopped;
    } catch (const futexsim::cli::interrupted& e) {
        say_error(fmt::format("futexsim: interrupted: {}", e.what()));
        return futexsim::stop_status();
    } catch (const futexsim::cli::usage_error& e) {
        say_error(fmt::format("futexsim: error: {}", e.what()));
        return 2;
    } catch (const std::exception& e) {
        say_error(fmt::format("futexsim: internal error: {}", e.what()));
        return 1;
    }
}
