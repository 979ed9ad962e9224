#!/usr/bin/env python3
"""scripts/check_architecture.py on small trees: each rule it enforces is broken once and
named with file:line; a tree that keeps the rules passes. (run by ctest)"""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "check_architecture.py")
# Every small tree lives under one directory of this run's, removed when the run ends.
SCRATCH = tempfile.mkdtemp(prefix="pollscale_arch_")
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)


def tree(files):
    d = tempfile.mkdtemp(prefix="tree-", dir=SCRATCH)
    for rel, text in files.items():
        path = os.path.join(d, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return d


def check(files):
    r = subprocess.run([sys.executable, SCRIPT, tree(files)], capture_output=True, text=True)
    return r.returncode, r.stdout


GOOD = {
    "datasets/schema.hpp": "#pragma once\n",
    "model/fit.cpp": '#include "model/fit.hpp"\n#include "datasets/schema.hpp"\n#include <vector>\n',
    "model/fit.hpp": "#pragma once\n",
    "sim/engine.hpp": '#include "datasets/schema.hpp"\n',
    "app/main.cpp": '#include "model/fit.hpp"\n#include "sim/engine.hpp"\n#include "sim/core/queue.hpp"\n',
    "sim/core/queue.hpp": "#pragma once\n",
    "sim/server.cpp": '#include "sim/core/queue.hpp"\n#include "sim/engine.hpp"\n',
    "docs/a.md": "see docs/b.md\n",
    "datasets/vocabulary.cpp": 'constexpr table<scenario, 2> scenarios{{s::a, s::b}, {"find_active", "token_ring"}};\n'
    'constexpr table<metric, 1> metrics{\n    {metric::throughput},\n    {"throughput"}};\n'
    'constexpr table<fd_kind, 1> fd_kinds{{fd_kind::pipe}, {"pipe"}};\n',
    "model/forms.cpp": '// a "token_ring" in a comment is prose\nbool f(k) { return k == "pipe"; }  // "throughput"\n'
    'const char* j = "token_ring";  // vocabulary: a JSON field of that name\n',
}


def main():
    failures = []

    def expect(name, files, rc, fragment=""):
        got_rc, out = check(files)
        if got_rc != rc or fragment not in out:
            failures.append(f"{name}: exit {got_rc} (want {rc}), output {out!r} (want {fragment!r})")

    expect("a tree that keeps the rules", GOOD, 0)
    expect("model/ includes calibrate/", {**GOOD, "model/fit.cpp": '\n#include "calibrate/probe.hpp"\n'}, 1,
           "model/fit.cpp:2: model/ includes 'calibrate/probe.hpp'")
    expect("sim/ includes model/", {**GOOD, "sim/engine.hpp": '#include "model/fit.hpp"\n'}, 1,
           "sim/engine.hpp:1: sim/ includes 'model/fit.hpp'")
    expect("datasets/ includes app/", {**GOOD, "datasets/x.cpp": '#include "app/cli.hpp"\n'}, 1,
           "datasets/x.cpp:1: datasets/ includes 'app/cli.hpp'")
    expect("a missing header", {**GOOD, "app/main.cpp": '#include "model/gone.hpp"\n'}, 1,
           "app/main.cpp:1: includes 'model/gone.hpp', which does not exist")
    expect("a relative include", {**GOOD, "sim/x.cpp": '#include "../datasets/schema.hpp"\n'}, 1,
           "sim/x.cpp:1: includes '../datasets/schema.hpp' by a relative path")
    outside = "../" + "shared/design/STYLE.md"
    expect("a pointer outside", {**GOOD, "docs/a.md": "see " + outside + "\n"}, 1,
           "docs/a.md:1: points outside the repository")
    expect("a scenario name as a literal", {**GOOD, "sim/x.cpp": 'int a;\nif (k.scenario == "token_ring") {}\n'}, 1,
           'sim/x.cpp:2: "token_ring" written as a string')
    expect("a metric name as a literal (a multi-line table)",
           {**GOOD, "app/x.cpp": 'auto m = "throughput";\n'}, 1, 'app/x.cpp:1: "throughput" written as a string')
    expect("sim/core/ includes the models around it", {**GOOD, "sim/core/queue.hpp": '#include "sim/engine.hpp"\n'}, 1,
           "sim/core/queue.hpp:1: sim/core/ includes 'sim/engine.hpp'; sim/core/ may include only sim/core/")
    expect("sim/core/ includes datasets/", {**GOOD, "sim/core/x.cpp": '#include "datasets/schema.hpp"\n'}, 1,
           "sim/core/x.cpp:1: sim/core/ includes 'datasets/schema.hpp'")
    for f in failures:
        print("FAIL", f)
    print(f"{11 - len(failures)} of 11 cases pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
