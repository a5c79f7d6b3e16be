// onyx._openmp_spin: the OpenMP wait policy's spin count (core/openmp_spin.h), in a module of its own that does not
// load libgomp, so that the package can set GOMP_SPINCOUNT before its native module loads libgomp (which reads the
// variable once, when loaded).
#include <pybind11/pybind11.h>
#include <unistd.h>

#include "core/openmp_spin.h"

PYBIND11_MODULE(_openmp_spin, m) {
  m.doc() = "GOMP_SPINCOUNT for onyx's busy-wait on this CPU (~1 ms, ~100 us when other tasks are running; see onyx's core/openmp_spin.h)";
  m.def(
      "spin_count_to_set",
      [] {
        // The CLI's rules on the process's environment (os.environ writes through to it): 0 where the user chose.
        return onyx::OpenMpSpinIsOursToSet(environ) ? onyx::DefaultOpenMpSpinCount() : 0L;
      },
      "libgomp spin iterations that last onyx's busy-wait budget on this CPU (measured in ~1 ms), or 0 when the "
      "environment already chose (GOMP_SPINCOUNT, OMP_WAIT_POLICY, ONYX_OPENMP_SPIN=default)");
}
