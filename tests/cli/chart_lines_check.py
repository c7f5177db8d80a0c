#!/usr/bin/env python3
"""Every line chart of a gpuwhy HTML report that has data draws a line.
Usage: chart_lines_check.py REPORT.html [TITLE_PREFIX:CLASS ...]
A series path ("s-..." class) holding two or more points must join them:
at least one "L" segment, and no more breaks ("M") than joins ("L"). The
renderer breaks a line only where the series pauses for several of its own
median sample spacings, which at most half of the spacings can exceed; a path
of mostly moves draws dots nobody sees (host rows once a second taken for
gaps did that). Each TITLE_PREFIX:CLASS names a series that must be
there with a line (the chart's title begins with TITLE_PREFIX).
Prints one line per chart and exits 1 on the first kind of failure found."""
import re
import sys


def main():
    page = open(sys.argv[1], encoding="utf-8").read()
    required = [a.split(":", 1) for a in sys.argv[2:]]
    errors, drawn = [], set()
    figures = re.findall(r'<figure class="chart">(.*?)</figure>', page, re.S)
    if not figures:
        errors.append("no chart in the page")
    for fig in figures:
        title = re.search(r"<b>(.*?)</b>", fig, re.S).group(1)
        report = []
        for css, d in re.findall(r'<path class="(s-[a-z0-9-]+)" d="([^"]*)"', fig):
            moves, lines = d.count("M"), d.count("L")
            report.append("%s %dM %dL" % (css, moves, lines))
            if moves + lines >= 2 and (lines == 0 or moves > lines):
                errors.append("%s: series %s has %d points, broken %d times, joined %d times"
                              % (title, css, moves + lines, moves, lines))
            if lines >= moves and lines:
                drawn.add((title, css))
        print("%s: %s" % (title, ", ".join(report) or "no series"))
    for prefix, css in required:
        if not any(t.startswith(prefix) and c == css for t, c in drawn):
            errors.append("no line of series %s in a chart titled %s..." % (css, prefix))
    for e in errors:
        print("FAIL:", e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
