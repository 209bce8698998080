"""What every peer of perf/runner.py shares: the skip exception, the host CPU's name, and the
report a peer writes (the fields of Parity's run report the runner reads) with its summary line.

A peer builds `doc` (model, peer, precision, parameters, and after a run status, iterations,
timing, results) and `info` (the backend facts), then calls `finish`."""
import json
import platform
import sys


class Skip(Exception):
    """The peer cannot run this case (package missing, a precision or case it lacks)."""


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "host CPU"


def backend_facts(name):
    """The backend fields a peer fills in (None where they do not apply)."""
    return {"backend": name, "execution_space": None, "device_name": None, "concurrency": None,
            "kokkos_version": None, "precision": "double", "versions": {}}


def mark_skipped(doc, reason):
    """A case the peer does not run: status skipped, nothing timed (total NaN)."""
    doc.update(status="skipped", reason=str(reason), iterations=0, results={},
               timing={"total_seconds": float("nan"), "phases": {}, "note": "not run"})


def finish(doc, info, peer, command, json_path, quiet, summary=None):
    """Writes the report (to json_path; "-": standard output) and, unless quiet, one line: the
    skip reason or summary(doc) for a run. `command` is "info" or the model's command."""
    doc["backend"] = info
    doc["parity"] = {"peer": peer, "commit": None}
    if command == "info":
        doc = {"backend": info, "parity": doc["parity"],
               **({"status": "skipped", "reason": doc["reason"]} if doc.get("status") == "skipped" else {})}
    text = json.dumps(doc, indent=1)
    if json_path == "-":
        print(text)
    elif json_path:
        with open(json_path, "w") as f:
            f.write(text + "\n")
    if not quiet:  # beside a report on standard output, on standard error
        out = sys.stderr if json_path == "-" else sys.stdout
        if doc.get("status") == "skipped":
            print(f"{peer}: skipped: {doc['reason']}", file=out)
        elif command != "info" and summary is not None:
            print(f"{peer}: {summary(doc)}", file=out)
