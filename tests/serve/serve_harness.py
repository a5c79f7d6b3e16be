"""What the serving tests share: starting `onyx serve` on free ports and reading where it listens, stopping it with
a signal, the server's resident memory, and the list of failed checks."""
import signal
import subprocess
import time


def start_server(command, timeout=60):
    """Runs `command` (an `onyx serve ... --port 0 [--grpc-port 0]` argv) and waits for its 'listening on' lines.
    Returns (process, HTTP base URL, gRPC target or None); exits the test with the server's stderr if it does not
    start."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wants_grpc = "--grpc-port" in command
    http = target = None
    deadline = time.time() + timeout
    while time.time() < deadline and (http is None or (wants_grpc and target is None)):
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("listening on http"):
            http = line.split("listening on ", 1)[1].strip()
        elif line.startswith("listening on grpc"):
            target = line.split("://", 1)[1].strip()
    if http is None or (wants_grpc and target is None):
        proc.kill()
        raise SystemExit("the server did not start: " + proc.stderr.read())
    return proc, http, target


def port_of(url):
    return int(url.rsplit(":", 1)[1])


def stop_server(proc, sig=signal.SIGTERM, timeout=30):
    """Sends `sig` and waits for the exit; returns the exit code, or None when it had to be killed."""
    proc.send_signal(sig)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return None


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Checks:
    """Prints each check as ok/FAIL and keeps the failed ones."""

    def __init__(self):
        self.failures = []

    def check(self, cond, what):
        print(("ok   " if cond else "FAIL ") + what, flush=True)
        if not cond:
            self.failures.append(what)
