#!/usr/bin/env python3
"""Every JSON document pollscale writes, checked against docs/schema/pollscale.schema.json.

Runs each command that writes JSON on small inputs (a tiny calibration of this machine,
the synthetic fixture, the historical record, cost flags for the simulator), validates
every document against the schema, and fails when a `kind` the schema lists was not
produced (a new output without a test) or a document names a kind the schema lacks.

usage: tests/schema/check_outputs_test.py --pollscale BUILD/app/pollscale
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA = os.path.join(ROOT, "docs", "schema", "pollscale.schema.json")
FIXTURE = os.path.join(ROOT, "tests", "model", "data", "synthetic")
HISTORICAL = os.path.join(ROOT, "datasets", "historical")
# A corpus calibration with producers rows on one and two CPUs.
CORPUS_PRODUCERS = os.path.join(ROOT, "datasets", "machines", "amd-epyc_l2-1m_l3-508m_2cpu_6.18.44-fc-v1252",
                                "quick-20261204T003706Z")
# A corpus calibration with one operation in flight (accept_herd, a one-token shared_epoll
# ring) on one and two CPUs, and the wakeup probe's round trips.
CORPUS_ONE_IN_FLIGHT = os.path.join(ROOT, "datasets", "machines", "amd-epyc_l2-1m_l3-508m_2cpu_6.18.44-fc-v1272",
                                    "quick-20261206T074141Z")
# A corpus calibration whose host moved its two CPUs during the run (placement sentinel).
CORPUS_PLACEMENT = os.path.join(ROOT, "datasets", "machines", "amd-epyc_l2-1m_l3-32m_2cpu_6.18.44-fc-v1300",
                                "quick-20261207T105542Z")
TINY = ["--scenarios", "find_active", "--mechanisms", "poll,epoll", "--n", "4,16",
        "--max-seconds-per-point", "0.005", "--rounds", "2"]
COSTS = ["--wait-per-call-ns", "1000", "--wait-per-fd-ns", "30", "--handler-ns", "20000",
         "--duration", "0.2", "--min-replications", "2", "--max-replications", "3"]


def run(pollscale, *args):
    """stdout of `pollscale args`; a failure stops the test with what the command said."""
    r = subprocess.run([pollscale, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"pollscale {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def documents(pollscale, tmp):
    """(what, document) for every JSON output, produced in `tmp`."""
    cal_a, cal_b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    out = [("calibrate --format json", json.loads(run(pollscale, "calibrate", *TINY, "--format", "json", "--out", cal_a)))]
    run(pollscale, "calibrate", *TINY, "--seed", "2", "--format", "csv", "--out", cal_b)
    out.append(("context.json", json.load(open(os.path.join(cal_a, "context.json")))))
    out.append(("files.json", json.load(open(os.path.join(cal_a, "files.json")))))
    model = os.path.join(tmp, "model.json")
    run(pollscale, "fit", FIXTURE, "-o", model)
    out.append(("model.json", json.load(open(model))))
    out.append(("cells", json.loads(run(pollscale, "cells", model, "--format", "json"))))
    out.append(("predict", json.loads(run(pollscale, "predict", model, "--scenario", "find_active", "--mechanism", "poll",
                                          "--n", "100000", "--format", "json"))))
    out.append(("predict --change", json.loads(run(pollscale, "predict", model, "--scenario", "find_active",
                                                   "--mechanism", "poll", "--n", "100", "--change", "poll.fixed*=0.5",
                                                   "--format", "json"))))
    out.append(("predict --swap", json.loads(run(pollscale, "predict", model, "--scenario", "find_active",
                                                 "--mechanism", "poll", "--variant", "none", "--n", "100",
                                                 "--swap", "poll=epoll/lt", "--format", "json"))))
    out.append(("validate", json.loads(run(pollscale, "validate", FIXTURE, "--format", "json"))))
    out.append(("validate (several)", json.loads(run(pollscale, "validate", FIXTURE, HISTORICAL, "--format", "json"))))
    scaling = os.path.join(HISTORICAL, "scaling")
    out.append(("scale", json.loads(run(pollscale, "scale", scaling, "--at", "64", "--format", "json"))))
    out.append(("scale (several)", json.loads(run(pollscale, "scale", scaling, scaling, "--format", "json"))))
    out.append(("scale --from-cpus", json.loads(run(pollscale, "scale", CORPUS_PRODUCERS, "--from-cpus", "1", "--cpus",
                                                    "8", "--at", "7", "--format", "json"))))
    scaling_model = os.path.join(tmp, "scaling_model.json")
    run(pollscale, "fit", CORPUS_PRODUCERS, "--simulator-check", "off", "-o", scaling_model)
    out.append(("model.json with cpu_scaling", json.load(open(scaling_model))))
    out.append(("predict --cpus", json.loads(run(pollscale, "predict", scaling_model, "--scenario", "producers",
                                                 "--cpus", "1,4,64", "--format", "json"))))
    out.append(("scale --from-cpus (one in flight)", json.loads(run(pollscale, "scale", CORPUS_ONE_IN_FLIGHT,
                                                                    "--from-cpus", "1", "--format", "json"))))
    chain_model = os.path.join(tmp, "chain_model.json")
    run(pollscale, "fit", CORPUS_ONE_IN_FLIGHT, "--simulator-check", "off", "-o", chain_model)
    out.append(("model.json with one_in_flight", json.load(open(chain_model))))
    out.append(("predict --cpus (one in flight)", json.loads(run(pollscale, "predict", chain_model, "--scenario",
                                                                 "accept_herd", "--variant", "exclusive", "--cpus",
                                                                 "1,2,16", "--format", "json"))))
    placement_model = os.path.join(tmp, "placement_model.json")
    run(pollscale, "fit", CORPUS_PLACEMENT, "--simulator-check", "off", "-o", placement_model)
    out.append(("model.json with placement", json.load(open(placement_model))))
    out.append(("simulate (placements drawn)", json.loads(run(pollscale, "simulate", placement_model, "--mechanism",
                                                              "epoll", "--fd-kind", "tcp", "--idle", "100", "--active",
                                                              "8", "--cpus", "2", "--duration", "0.05",
                                                              "--format", "json"))))
    out.append(("compare", json.loads(run(pollscale, "compare", cal_a, cal_b, "--points", "all", "--format", "json"))))
    out.append(("simulate", json.loads(run(pollscale, "simulate", "--mechanism", "poll", *COSTS, "--format", "json"))))
    out.append(("simulate (model, costs drawn)", json.loads(run(pollscale, "simulate", model, "--mechanism", "poll",
                                                                "--fd-kind", "pipe", "--handler-ns", "2000",
                                                                "--duration", "0.05", "--format", "json"))))
    out.append(("whatif --change", json.loads(run(pollscale, "whatif", model, "--mechanisms", "poll", "--fd-kind", "pipe",
                                                  "--handler-ns", "2000", "--change", "poll.per_fd*=0.5",
                                                  "--duration", "0.05", "--model-uncertainty", "fixed",
                                                  "--format", "json"))))
    out.append(("whatif --swap", json.loads(run(pollscale, "whatif", model, "--mechanisms", "poll", "--fd-kind", "pipe",
                                                "--handler-ns", "2000", "--swap", "poll=epoll/lt", "--duration", "0.05",
                                                "--model-uncertainty", "fixed", "--format", "json"))))
    out.append(("simulate --swap", json.loads(run(pollscale, "simulate", model, "--mechanism", "poll", "--fd-kind",
                                                  "pipe", "--handler-ns", "2000", "--swap", "poll=select",
                                                  "--duration", "0.05", "--format", "json"))))
    out.append(("whatif", json.loads(run(pollscale, "whatif", "--mechanisms", "poll", "--sweep", "idle=0,100",
                                         *COSTS, "--format", "json"))))
    out.append(("capacity --mechanisms", json.loads(run(pollscale, "capacity", model, "--mechanisms", "poll,epoll",
                                                        "--fd-kind", "pipe", "--handler-ns", "20000", "--vary", "idle",
                                                        "--hi", "1000", "--max-p99", "0.01", "--duration", "0.05",
                                                        "--format", "json"))))
    out.append(("capacity", json.loads(run(pollscale, "capacity", "--mechanism", "poll", "--vary", "idle", "--hi", "1000",
                                           "--max-p99", "0.01", *COSTS, "--format", "json"))))
    out.append(("capacity --confirm", json.loads(run(pollscale, "capacity", "--mechanism", "poll", "--vary", "idle",
                                                     "--hi", "1000", "--max-p99", "0.01", *COSTS, "--confirm",
                                                     "--format", "json"))))
    study = os.path.join(tmp, "study")
    subprocess.run([pollscale, "study", cal_a, "-o", study], capture_output=True)  # exit 1: no handler costs here
    for name in ("study.json", "predictions.json"):
        out.append((name, json.load(open(os.path.join(study, name)))))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pollscale", required=True)
    a = ap.parse_args()
    schema = json.load(open(SCHEMA))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    listed = set(schema["properties"]["kind"]["enum"])
    seen, failures = set(), []
    with tempfile.TemporaryDirectory(prefix="pollscale_schema_") as tmp:
        for what, doc in documents(os.path.abspath(a.pollscale), tmp):
            seen.add(doc.get("kind"))
            for e in validator.iter_errors(doc):
                path = "/".join(str(p) for p in e.absolute_path)
                failures.append(f"{what}: {doc.get('kind')}: at /{path}: {e.message[:200]}")
    failures += [f"kind {k!r}: listed in the schema but no command above writes it" for k in sorted(listed - seen)]
    failures += [f"kind {k!r}: written but not in the schema" for k in sorted(seen - listed)]
    for f in failures:
        print(f, file=sys.stderr)
    print(f"{len(seen)} kinds checked against {os.path.relpath(SCHEMA, ROOT)}: "
          f"{'ok' if not failures else str(len(failures)) + ' failures'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
