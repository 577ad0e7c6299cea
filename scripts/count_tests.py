#!/usr/bin/env python3
"""Counts the test cases of one `bazel test` invocation from its build events.

usage: count_tests.py EVENTS.json

EVENTS.json is the file `bazel test --build_event_json_file=` wrote, so only
the targets this invocation tested count (cached results too: they are part
of it), never a stale log of another run or another configuration. Prints
"PASSED FAILED SKIPPED" on stdout, and on stderr one line per target that
failed or did not run.

Per test target, from the last attempt of each run and shard:
  - a shell test's own summary line in test.log, "NAME: N passed, M failed"
    with an optional ", K skipped", gives its cases;
  - otherwise the test.xml (gtest's, or the one Bazel writes): each testcase
    is passed, failed (a failure or error) or skipped;
  - a target that did not pass (crash, timeout, build failure, never run) is
    at least one failure, whatever its logs counted.
"""

import json
import re
import sys
import xml.etree.ElementTree as ElementTree
from urllib.parse import unquote, urlparse

SUMMARY = re.compile(r"^[a-z_]+: (\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")


def local_path(uri):
    return unquote(urlparse(uri).path)


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def counts_from_log(text):
    """The last summary line of a shell test's log, or None."""
    found = None
    for line in text.splitlines():
        match = SUMMARY.match(line.strip())
        if match:
            found = tuple(int(g or 0) for g in match.groups())
    return found


def counts_from_xml(text):
    """Passed, failed and skipped testcases of a JUnit XML file, or None."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError:
        return None
    passed = failed = skipped = 0
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif (case.find("skipped") is not None or case.get("result") == "skipped"
              or case.get("status") == "notrun"):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def read_events(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                yield json.loads(line)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    test_targets = set()
    attempts = {}  # (label, run, shard) -> (attempt, result)
    summaries = {}  # label -> overall status
    for event in read_events(argv[1]):
        ident = event.get("id", {})
        if "targetConfigured" in ident:
            kind = event.get("configured", {}).get("targetKind", "")
            if kind.endswith("_test rule"):
                test_targets.add(ident["targetConfigured"]["label"])
        elif "testResult" in ident:
            key = ident["testResult"]
            where = (key["label"], key.get("run", 1), key.get("shard", 1))
            attempt = key.get("attempt", 1)
            if where not in attempts or attempts[where][0] < attempt:
                attempts[where] = (attempt, event.get("testResult", {}))
        elif "testSummary" in ident:
            label = ident["testSummary"]["label"]
            summaries[label] = event.get("testSummary", {}).get("overallStatus", "NO_STATUS")
            test_targets.add(label)
    totals = [0, 0, 0]
    ran = set()
    for (label, _, _), (_, result) in sorted(attempts.items()):
        ran.add(label)
        outputs = {o.get("name"): local_path(o.get("uri", ""))
                   for o in result.get("testActionOutput", [])}
        log = read_text(outputs.get("test.log", "")) or ""
        counts = counts_from_log(log)
        if counts is None:
            counts = counts_from_xml(read_text(outputs.get("test.xml", "")) or "")
        status = result.get("status", "NO_STATUS")
        passed, failed, skipped = counts or (0, 0, 0)
        if status not in ("PASSED", "FLAKY") and failed == 0:
            failed = 1
            sys.stderr.write(f"{label}: {status} (did not pass: a crash or timeout is a failure)\n")
        elif failed:
            sys.stderr.write(f"{label}: {failed} failed\n")
        if counts is None and failed == 0:
            passed = 1
        for k, n in enumerate((passed, failed, skipped)):
            totals[k] += n
    for label in sorted(test_targets - ran):
        totals[1] += 1
        status = summaries.get(label, "not run")
        sys.stderr.write(f"{label}: {status} (did not run: counts as a failure)\n")
    print(*totals)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
