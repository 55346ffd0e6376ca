#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a 'hwprof report --html' page without a browser (tests/e2e/report_html.sh).

  report_page_check.py PAGE TITLE... [--contains TEXT]...
      the page is self-contained (no external script, style, image or link),
      its sections are TITLE... in order, every table has a header row and
      rows of the same width (cells counted with their colspan), every
      number cell's data-v parses, every link inside the page (href="#ID")
      has an element ID to land on, and each TEXT occurs in some table cell
Prints a summary line; exits 1 with the reason."""
import html.parser
import sys


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sections, self.tables, self.external = [], [], []
        self.ids, self.links = set(), []
        self.in_h2 = self.cell = None
        self.row = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if a.get("href", "").startswith("#"):
            self.links.append(a["href"][1:])
        for k in ("src", "href"):
            if k in a and not a[k].startswith("#"):
                self.external.append(f"<{tag} {k}={a[k]}>")
        if tag == "link":
            self.external.append("<link>")
        if tag == "h2":
            self.in_h2 = ""
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = ["", a.get("data-v"), int(a.get("colspan", "1"))]

    def handle_endtag(self, tag):
        if tag == "h2":
            self.sections.append(self.in_h2)
            self.in_h2 = None
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(tuple(self.cell))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.tables[-1].append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.in_h2 is not None:
            self.in_h2 += data
        if self.cell is not None:
            self.cell[0] += data


def main(argv):
    path, rest = argv[1], argv[2:]
    want = [a for i, a in enumerate(rest) if a != "--contains" and (i == 0 or rest[i - 1] != "--contains")]
    texts = [rest[i + 1] for i, a in enumerate(rest) if a == "--contains"]
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    if p.external:
        sys.exit(f"not self-contained: {p.external[:3]}")
    if p.sections != want:
        sys.exit(f"sections {p.sections}, expected {want}")
    cells = set()
    for n, t in enumerate(p.tables):
        if not t:
            sys.exit(f"table {n + 1} has no header")
        width = sum(c[2] for c in t[0])
        for r in t[1:]:
            if sum(c[2] for c in r) != width:
                sys.exit(f"table {n + 1}: a row of {sum(c[2] for c in r)} cells under {width} headers")
            for text, v, _ in r:
                cells.add(text)
                if v is not None:
                    float(v)
    dangling = [x for x in p.links if x not in p.ids]
    if dangling:
        sys.exit(f"{len(dangling)} links land nowhere: #{dangling[0]}")
    for x in texts:
        if not any(x in c for c in cells):
            sys.exit(f"no cell holds '{x}'")
    print(f"{len(p.sections)} sections, {len(p.tables)} tables, "
          f"{sum(len(t) - 1 for t in p.tables)} rows, {len(p.links)} links inside, self-contained")


if __name__ == "__main__":
    main(sys.argv)
