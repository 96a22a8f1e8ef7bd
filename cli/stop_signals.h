// SIGTERM and SIGHUP as SIGINT: the handler sets the same stop flags
// (run/stop_signal.h), so every command that stops at a safe point on
// SIGINT, and passes it on to its children, does so on these too. The exit
// status is 128 + the signal that came first.
#pragma once

namespace futexsim::cli {

void install_stop_signal_handlers();
// 128 + the first stop signal (130 for SIGINT, or when none came).
int stop_status();
// "SIGINT", "SIGTERM" or "SIGHUP": the first stop signal (SIGINT when none
// came, as for a closed progress stream).
const char* stop_signal_name();
// For a closed progress stream: stop as on SIGINT (the caller reports it).
void stop_as_if_interrupted();

}  // namespace futexsim::cli
