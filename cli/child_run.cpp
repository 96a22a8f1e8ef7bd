#include "cli/child_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <stdexcept>
#include <system_error>

#include "run/stop_signal.h"

extern char** environ;

namespace futexsim::cli {

std::string self_executable()
{
    std::array<char, 4096> buf{};
    const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    if (n <= 0)
        throw std::system_error(errno, std::generic_category(), "readlink /proc/self/exe");
    return std::string(buf.data(), static_cast<std::size_t>(n));
}

child_result run_child_impl(const std::string& program, const std::vector<std::string>& args,
                            void (*on_start)(void*, pid_t), void* ctx)
{
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
        throw std::system_error(errno, std::generic_category(), "pipe");

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);

    // The sweep's workers run with SIGINT blocked; the child must not.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    for (int sig :
         {SIGINT, SIGTERM, SIGHUP, SIGPIPE})  // a parent that ignores SIGPIPE must not pass that on
        sigaddset(&dfl, sig);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &dfl);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);

    pid_t pid = -1;
    const int rc = posix_spawn(&pid, program.c_str(), &fa, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (rc != 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        throw std::system_error(rc, std::generic_category(), "posix_spawn " + program);
    }
    on_start(ctx, pid);

    // Both pipes at once, so that a child filling one cannot block on it.
    child_result r;
    std::array<pollfd, 2> fds{{{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}}};
    std::array<std::string*, 2> sinks{&r.out, &r.err};
    int open_fds = 2;
    std::array<char, 65536> buf{};
    bool passed_on = false;
    while (open_fds > 0) {
        // A stop (SIGINT, SIGTERM, SIGHUP) reaches the child too, however
        // the parent waits: it stops at its safe point and the parent sees
        // its status, so no child outlives the command.
        if (!passed_on && sigint_received()) {
            passed_on = true;
            kill(pid, SIGINT);
        }
        if (poll(fds.data(), fds.size(), 200) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (std::size_t i = 0; i < fds.size(); i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            const ssize_t n = read(fds[i].fd, buf.data(), buf.size());
            if (n > 0) {
                sinks[i]->append(buf.data(), static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace futexsim::cli
