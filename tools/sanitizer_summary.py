#!/usr/bin/env python3
"""The summary of tools/gpu_run.sh's sanitize step: reads the logs of
tools/gpu_sanitize.py under compute-sanitizer and prints, per tool, the
errors it reported (its "ERROR SUMMARY: N errors" line; racecheck's
"RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)") and the
script's own "sanitize cases" line, then the CUDA API errors of the
memcheck pass run with --report-api-errors all, grouped by driver call,
error and caller, each marked expected (EXPECTED_API_ERRORS: a probe that
fails by design, explained in docs/testing.md), unexplained, or not Swage's
(made by PyTorch or its CUDA runtime).

    tools/sanitizer_summary.py memcheck=LOG racecheck=LOG synccheck=LOG initcheck=LOG api=LOG
    tools/sanitizer_summary.py --check-api LOG

A log that does not exist is "not run". With --check-api the exit status is
1 when the API pass's log has no ERROR SUMMARY (the run did not finish), an
API error made by Swage (or by a caller the backtrace does not name) that is
not in EXPECTED_API_ERRORS, or any error that is not an API error (the
ERROR SUMMARY counts more than the API errors printed, less the script's
own failing exit status, which compute-sanitizer also counts); else 0.
"""

import collections
import os
import re
import sys

# Driver calls that Swage makes knowing that they fail: (call, error) -> a
# short why; docs/testing.md ("The GPU sanitizers", "API errors") explains
# each at length.
EXPECTED_API_ERRORS = {
    ("cuFuncGetParamInfo", "CUDA_ERROR_INVALID_VALUE"):
        "count_params' probe, one per kernel loaded (docs/testing.md)",
}

PROGRAM_HIT = re.compile(r'Program hit (?P<error>\w+)(?: \(error (?P<code>-?\d+)\))?'
                         r'(?: due to "(?P<text>.*?)")? on CUDA API call to (?P<call>\w+)')
ERROR_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) errors?")
RACECHECK_SUMMARY = re.compile(r"RACECHECK SUMMARY: (\d+) hazards? displayed "
                               r"\((\d+) errors?, (\d+) warnings?\)")
CASES = re.compile(r"^(sanitize cases: .*?)\s*(?:\(\d+(?:\.\d+)?s\))?\s*$")
LIBRARY = re.compile(r"([\w.+-]+\.so(?:\.[\w]+)*)")
TARGET_ERROR = "Target application returned an error"
TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")


class ApiError:
    def __init__(self, call, error, code, text, libraries):
        self.call, self.error, self.code, self.text = call, error, code, text
        self.libraries = libraries
        self.origin = origin_of(libraries)

    @property
    def kind(self):
        if self.origin not in ("swage", "unknown"):
            return "not Swage's"
        if (self.call, self.error) in EXPECTED_API_ERRORS:
            return "expected"
        return "unexplained"


def origin_of(libraries):
    """Who made a driver call, from the libraries of its host backtrace
    (innermost first): "swage" (libswage, or ctypes: only Swage calls the
    driver through ctypes here), "pytorch" (libtorch*, libc10*, its
    libcudart), another library's name, or "unknown"."""
    for library in libraries:
        name = os.path.basename(library)
        if name.startswith("libcuda.so"):
            continue
        if name.startswith("libswage") or name.startswith("libffi") or name.startswith("_ctypes"):
            return "swage"
        if name.startswith(("libtorch", "libc10", "libcudart", "_C.")):
            return "pytorch"
        return name
    return "unknown"


class Log:
    """What one compute-sanitizer log says."""

    def __init__(self, text):
        self.errors = None      # the ERROR SUMMARY count (the last one)
        self.hazards = None     # racecheck: (displayed, errors, warnings)
        self.cases = None       # the script's "sanitize cases: ..." line
        self.target_error = False
        self.tool_messages = []  # "Error: ..." lines (the tool's, racecheck's races)
        self.api_errors = []
        block = None
        for line in text.splitlines():
            match = re.match(r"^=+( *)(.*)$", line)
            if not match:
                cases = CASES.match(line.strip())
                if cases:
                    self.cases = cases.group(1)
                continue
            indent, body = len(match.group(1)), match.group(2).strip()
            if block is not None and indent > 1 and body:
                block[1].extend(LIBRARY.findall(body) if "Frame" in body or " in " in body
                                or body.startswith("in ") else [])
                continue
            if block is not None:
                self._end(block)
                block = None
            hit = PROGRAM_HIT.search(body)
            if hit:
                block = (hit, [])
                continue
            summary = ERROR_SUMMARY.search(body)
            if summary:
                self.errors = int(summary.group(1))
            race = RACECHECK_SUMMARY.search(body)
            if race:
                self.hazards = tuple(int(race.group(i)) for i in (1, 2, 3))
            if TARGET_ERROR in body:
                self.target_error = True
            if re.match(r"(Error|Internal Sanitizer Error)\b", body):
                self.tool_messages.append(body)
        if block is not None:
            self._end(block)

    def _end(self, block):
        hit, libraries = block
        self.api_errors.append(ApiError(hit.group("call"), hit.group("error"),
                                        hit.group("code"), hit.group("text"), libraries))

    @property
    def other_errors(self):
        """Errors in the ERROR SUMMARY that are neither an API error printed
        nor the script's failing exit status (None without a summary)."""
        if self.errors is None:
            return None
        return max(0, self.errors - len(self.api_errors) - int(self.target_error))


def read(path):
    if not path or not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        return Log(f.read())


def tool_line(tool, log):
    if log is None:
        return "  %-10s not run" % tool
    if log.hazards is not None:
        found = "%d hazards (%d errors, %d warnings)" % log.hazards
    elif log.errors is not None:
        found = "%d error%s" % (log.errors, "" if log.errors == 1 else "s")
    else:
        found = "no summary (did it finish?)"
    notes = []
    if log.target_error:
        notes.append("the script failed")
    notes.extend(message[:120] for message in log.tool_messages[:2])
    cases = log.cases or "no 'sanitize cases' line"
    return "  %-10s %-34s %s%s" % (tool, found, cases,
                                   "  [%s]" % "; ".join(notes) if notes else "")


def api_lines(log):
    """The API pass: a total and one line per (call, error, caller)."""
    if log is None:
        return ["  %-10s not run" % "api"]
    kinds = collections.Counter(e.kind for e in log.api_errors)
    head = "  %-10s %d API error%s: %d expected, %d unexplained, %d not Swage's" % (
        "api", len(log.api_errors), "" if len(log.api_errors) == 1 else "s",
        kinds["expected"], kinds["unexplained"], kinds["not Swage's"])
    if log.errors is None:
        head += "; no ERROR SUMMARY (did it finish?)"
    elif log.other_errors:
        head += "; %d other errors (not API errors)" % log.other_errors
    lines = [head]
    groups = collections.Counter((e.call, e.error, e.origin, e.kind) for e in log.api_errors)
    for (call, error, origin, kind), count in sorted(groups.items(),
                                                     key=lambda item: (-item[1], item[0])):
        why = EXPECTED_API_ERRORS.get((call, error), "") if kind == "expected" else ""
        lines.append("    %5d  %-26s %-28s from %-10s %s%s" % (
            count, call, error, origin, kind, (": " + why) if why else ""))
    return lines


def api_problems(log):
    """Why the API pass is not clean, as sentences (empty when it is)."""
    if log is None:
        return ["no log of the API pass"]
    problems = []
    if log.errors is None:
        problems.append("its log has no ERROR SUMMARY: the run did not finish")
    unexplained = [e for e in log.api_errors if e.kind == "unexplained"]
    if unexplained:
        calls = collections.Counter("%s (%s)" % (e.call, e.error) for e in unexplained)
        problems.append("API errors made by Swage that no entry of EXPECTED_API_ERRORS explains: "
                        + ", ".join("%s x%d" % item for item in sorted(calls.items())))
    if log.other_errors:
        problems.append("%d errors that are not API errors (see the log)" % log.other_errors)
    return problems


def main(argv):
    if len(argv) == 2 and argv[0] == "--check-api":
        log = read(argv[1])
        for line in api_lines(log):
            print(line)
        problems = api_problems(log)
        for problem in problems:
            print("problem: " + problem)
        return 1 if problems else 0
    logs = {}
    for arg in argv:
        name, sep, path = arg.partition("=")
        if not sep or name not in TOOLS + ("api",):
            print("usage: sanitizer_summary.py [TOOL=LOG ...] [api=LOG] | --check-api LOG "
                  "(TOOL: %s)" % ", ".join(TOOLS), file=sys.stderr)
            return 2
        logs[name] = path
    print("sanitizers (tools/gpu_sanitize.py under compute-sanitizer):")
    for tool in TOOLS:
        if tool in logs:
            print(tool_line(tool, read(logs[tool])))
    if "api" in logs:
        for line in api_lines(read(logs["api"])):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
