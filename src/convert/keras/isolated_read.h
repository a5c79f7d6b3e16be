// libhdf5 (Debian's 1.10) trusts the addresses and sizes a file holds: a corrupt .h5 can make it read out of
// bounds, corrupt the heap or crash inside the library, where no check of ours can reach. The Keras readers that go
// through it therefore run in a child process; the model comes back over a pipe, and a child that dies is reported
// as a corrupt file (one line), never as a crash of onyx.
#pragma once

#include <string>

#include "convert/keras/keras_file.h"

namespace onyx::convert::keras {

using KerasReader = Result<KerasModelFile> (*)(const std::string& path);

// Runs `reader(path)` in a forked child and returns its result (errors keep their code and message). A child killed
// by a signal or ending otherwise than by handing back a result gives InvalidArgument naming `path`.
// Only a single-threaded process (the CLI) forks: in one with other threads (Python, onyx serve) a lock another
// thread holds at fork() would stay held in the child, so the read stays in process there. ONYX_HDF5_IN_PROCESS=1
// reads in this process always (for debuggers and sanitizers).
Result<KerasModelFile> ReadInChildProcess(const std::string& path, KerasReader reader);

}  // namespace onyx::convert::keras
