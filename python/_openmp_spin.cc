// onyx._openmp_spin: the OpenMP wait policy's spin count (core/openmp_spin.h), in a module of its own that does not
// load libgomp, so that the package can set GOMP_SPINCOUNT before its native module loads libgomp (which reads the
// variable once, when loaded).
#include <pybind11/pybind11.h>

#include "core/openmp_spin.h"

PYBIND11_MODULE(_openmp_spin, m) {
  m.doc() = "GOMP_SPINCOUNT for a busy-wait of ~100 us on this CPU (see onyx's core/openmp_spin.h)";
  m.def("spin_count", &onyx::DefaultOpenMpSpinCount,
        "libgomp spin iterations that last onyx's busy-wait budget on this CPU (measured, ~60 us)");
}
