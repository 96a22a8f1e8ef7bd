// SIGTERM and SIGHUP as SIGINT: the handler sets the same stop flags
// (run/stop_signal.h), so every command that stops at a safe point on
// SIGINT, and passes it on to its children, does so on these too. The exit
// status is 128 + the signal that came first.
#pragma once

#include "run/stop_signal.h"

namespace futexsim::cli {

void install_stop_signal_handlers();
// SIGPIPE: standard output or error is a pipe whose reader has gone
// (`futexsim run ... | head -1`): exit at once, printing nothing more,
// with status 141 (128 + SIGPIPE) as a shell reports `ls | head`, but by
// exit, not by the signal. A SIGPIPE from another pipe is ignored (the
// write then fails with EPIPE, which its caller reports). A sweep ignores
// SIGPIPE altogether (its own progress stream stops it as SIGINT does).
void install_sigpipe_handler();
inline constexpr int closed_pipe_status = 141;
// stop_status() and stop_signal_name(): run/stop_signal.h.
// For a closed progress stream: stop as on SIGINT (the caller reports it).
void stop_as_if_interrupted();

}  // namespace futexsim::cli
