// How long a thread of libgomp (the OpenMP runtime oneDNN's Debian build uses) busy-waits at a barrier before it
// sleeps, chosen by time on the CPU at hand instead of libgomp's fixed count, and by whether the process starts on
// CPUs that other tasks are using.
//
// Why: libgomp spins GOMP_SPINCOUNT iterations (300,000 by default: ~3 ms on a CPU whose `pause` takes 11 ns) before
// a waiting thread yields its core. When another process holds one of the cores a run uses, each barrier then waits
// for a thread that is not scheduled while its partner spins out its count: measured on a 2-vCPU Xeon with a busy
// loop on one core, MobileNet-v2 at 2 threads went from 3.3 ms to 624 ms, BERT from 93 ms to 2,040 ms. Spinning
// ~100 us instead (10,000 iterations there) gave 23-38 ms and ~300 ms under that load, and no measurable cost on a
// quiet machine; shorter spins cost quiet runs more (~36 us: 2-4% slower, ~11 us: 8-25%: threads then sleep in
// the gaps between a run's parallel regions and pay a wake-up each time).
//
// That budget is wrong where nothing else runs in the machine but its virtual CPUs share a busy host (session 17,
// 2-vCPU Firecracker VM, alternating with ONNX Runtime): a thread that sleeps halts its vCPU, and waking a halted vCPU
// then takes up to milliseconds, at every parallel region. MobileNet-v2 at 2 threads ran 11-26 ms with the ~100 us
// spin against ORT's 7-10 ms (whose caller takes over work a late worker has not started), 6-9 ms with ~330 us and
// longer. With a busy loop on one core, the longer spins cost 2-4x instead (a spinning thread also keeps the
// scheduler from moving the preempted thread to its idle core). So the budget is long (~1 ms) when no other task is
// runnable as the process starts, ~100 us otherwise: decided once, as libgomp reads it once.
//
// libgomp reads the variable once, when it is loaded, so this must run before: the CLI calls it from its
// executable's preinit array (re-executing itself with the variable set, for the commands that run models: libc's
// own environment is not usable that early; ~15 ms), the Python package before it imports its native module. An
// explicit GOMP_SPINCOUNT or OMP_WAIT_POLICY in the environment is left alone.
#pragma once

namespace onyx {

// Busy-wait budgets of a waiting OpenMP thread: on CPUs shared with other runnable tasks, and on CPUs of its own.
inline constexpr double kOpenMpSpinSharedMicroseconds = 100.0;
inline constexpr double kOpenMpSpinOwnMicroseconds = 1000.0;

// libgomp's spin count that lasts `micros` when one iteration of its wait loop takes `nanoseconds_per_iteration`,
// clamped to [1000, 300000] (libgomp's own throttled and default counts).
long OpenMpSpinCountFor(double nanoseconds_per_iteration, double micros);

// The time of one iteration of a load-and-pause wait loop like libgomp's, measured (best of 3 runs of 2,000
// iterations: ~60 us in all at Sapphire Rapids' 11 ns).
double MeasureSpinIterationNanoseconds();

// The runnable tasks besides the caller in a /proc/loadavg line ("0.52 0.58 0.59 3/467 12345": 3 running, one of
// them the caller), or -1 when the line does not parse.
int OtherRunnableTasksIn(const char* loadavg);

// OtherRunnableTasksIn(/proc/loadavg), the least of 4 samples 0.25 ms apart (a task that wakes now and then is no
// competitor; a busy loop is in every sample), or -1 when unreadable. Only system calls: callable from the preinit
// array.
int OtherRunnableTasks();

// OpenMpSpinCountFor(MeasureSpinIterationNanoseconds(), budget), the budget kOpenMpSpinSharedMicroseconds when
// OtherRunnableTasks() is not 0 (unknown counts as shared), else kOpenMpSpinOwnMicroseconds.
long DefaultOpenMpSpinCount();

// Whether the environment `envp` (a null-terminated "NAME=value" array; read directly because the program's
// `environ` is not set up yet when the CLI asks) leaves the choice to onyx: no GOMP_SPINCOUNT or OMP_WAIT_POLICY,
// no ONYX_OPENMP_SPIN=default, and not under valgrind (whose emulation would not follow the CLI's re-exec).
bool OpenMpSpinIsOursToSet(const char* const* envp);

}  // namespace onyx
