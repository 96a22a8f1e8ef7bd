// Runs this program again as a child process (`futexsim run ...`) and
// collects what it printed: how a sweep runs its runs, each isolated in its
// own process, several at a time.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace futexsim::cli {

struct child_result {
    int status = -1;  // exit status, or 128 + signal number
    std::string out, err;
};

// The path of the running executable (/proc/self/exe).
std::string self_executable();

// Starts `program args...` with no signal blocked and SIGINT, SIGTERM,
// SIGHUP and SIGPIPE default, stdin /dev/null, stdout and stderr captured,
// and PR_SET_PDEATHSIG SIGKILL: it dies with the thread that started it,
// however that ends (a sweep killed by SIGKILL leaves no run behind).
// `on_start` gets its pid, then it waits for the child to end, passing a
// stop (sigint_received()) on to it as SIGINT. A child that cannot be
// started is a std::system_error.
template <class OnStart>
child_result run_child(const std::string& program, const std::vector<std::string>& args, OnStart on_start);

child_result run_child_impl(const std::string& program, const std::vector<std::string>& args,
                            void (*on_start)(void*, pid_t), void* ctx);

template <class OnStart>
child_result run_child(const std::string& program, const std::vector<std::string>& args, OnStart on_start)
{
    return run_child_impl(program, args, [](void* c, pid_t pid) { (*static_cast<OnStart*>(c))(pid); }, &on_start);
}

}  // namespace futexsim::cli
