"""`import onyx` sets libgomp's busy-wait (GOMP_SPINCOUNT) before its native module loads libgomp, and leaves a
user's choice alone (src/core/openmp_spin.h says why)."""
import os
import subprocess
import sys

CODE = "import os, onyx; print(os.environ.get('GOMP_SPINCOUNT', 'unset'))"


def run(**env):
    full = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY", "ONYX_OPENMP_SPIN")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", CODE], env=full, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_sets_a_measured_spin_count():
    value = run()
    assert value.isdigit(), value
    assert 1000 <= int(value) <= 300000


def test_keeps_the_users_choice():
    assert run(GOMP_SPINCOUNT="77") == "77"
    assert run(OMP_WAIT_POLICY="passive") == "unset"
    assert run(ONYX_OPENMP_SPIN="default") == "unset"
