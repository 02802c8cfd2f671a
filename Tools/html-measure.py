#!/usr/bin/env python3
"""Measures Quire's HTML import on real pages against a reference HTML parser.

For each page it runs the `quire` binary (`convert PAGE x.json`, `render x.json`) and compares:

- visible text kept: the words Quire's document shows against the words Python's standard
  html.parser sees outside head, script, style, template, noscript, iframe and object (a
  multiset comparison: the share of the reference's words that Quire keeps, and the share of
  Quire's words the reference does not have);
- structure kept: headings, list items, tables and rows, links, images, code blocks and quotes
  in the page (html.parser's count of the elements) against the nodes in Quire's document;
- fixpoint: the document written as HTML and read back is the same document (Lexical JSON
  compared), and writing that again gives the same HTML.

    Tools/html-measure.py [--quire PATH] PAGE...

Pages are decoded as UTF-8 with replacement characters for invalid bytes, as Quire reads them.
Exit status 0 when every page reaches its fixpoint, 1 otherwise.
"""

import argparse
import collections
import html.parser
import json
import os
import subprocess
import sys
import tempfile

SKIPPED = {"head", "script", "style", "template", "noscript", "iframe", "object", "title"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
        "basefont", "bgsound", "frame", "keygen", "param", "image"}

# Elements inside which text flows on: words that touch across them are one word, as a browser
# shows them (`foo<b>bar</b>` is "foobar").
INLINE = {"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark", "q", "s", "samp",
          "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "del", "ins", "big", "nobr", "label"}


class Reference(html.parser.HTMLParser):
    """The text and element counts html.parser sees."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skipping = []
        self.pieces = []
        self.counts = collections.Counter()

    @property
    def words(self):
        return "".join(self.pieces).split()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag not in INLINE:
            # A block (or a line break) separates words that touch in the source.
            self.pieces.append(" ")
        if tag in SKIPPED and tag not in VOID:
            self.skipping.append(tag)
        if self.skipping:
            return
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.counts["heading"] += 1
        elif tag == "li":
            self.counts["list item"] += 1
        elif tag == "table":
            self.counts["table"] += 1
        elif tag == "tr":
            self.counts["table row"] += 1
        elif tag == "a" and attributes.get("href") is not None:
            self.counts["link"] += 1
        elif tag == "img" and attributes.get("src"):
            self.counts["image"] += 1
        elif tag == "pre":
            self.counts["code block"] += 1
        elif tag == "blockquote":
            self.counts["quote"] += 1

    def handle_endtag(self, tag):
        if tag not in INLINE:
            self.pieces.append(" ")
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()

    def handle_data(self, data):
        if not self.skipping:
            self.pieces.append(data)


def quire_counts(node, counts):
    kind = node.get("type")
    children = node.get("children", [])
    names = {"heading": "heading", "table": "table", "tablerow": "table row", "link": "link", "image": "image",
             "code": "code block", "quote": "quote"}
    if kind in names:
        counts[names[kind]] += 1
    if kind == "listitem" and not (children and children[0].get("type") == "list"):
        counts["list item"] += 1
    for child in children:
        quire_counts(child, counts)


def run(quire, *arguments):
    result = subprocess.run([quire, *arguments], capture_output=True)
    if result.returncode != 0:
        raise RuntimeError(f"quire {' '.join(arguments)}: {result.stderr.decode(errors='replace')}")
    return result.stdout.decode()


def measure(quire, page, directory):
    with open(page, "rb") as source:
        text = source.read().decode("utf-8", errors="replace")
    reference = Reference()
    reference.feed(text)
    reference.close()
    name = os.path.splitext(os.path.basename(page))[0]
    first = os.path.join(directory, name + ".json")
    written = os.path.join(directory, name + ".html")
    second = os.path.join(directory, name + "-2.json")
    rewritten = os.path.join(directory, name + "-2.html")
    run(quire, "convert", page, first)
    ours = run(quire, "render", first).replace("\ufffc", " ").split()
    run(quire, "convert", first, written)
    run(quire, "convert", written, second)
    run(quire, "convert", second, rewritten)
    with open(first) as a, open(second) as b:
        same_document = json.load(a) == json.load(b)
    with open(written) as a, open(rewritten) as b:
        same_html = a.read() == b.read()
    with open(first) as document:
        counts = collections.Counter()
        quire_counts(json.load(document)["root"], counts)
    wanted = collections.Counter(reference.words)
    got = collections.Counter(ours)
    kept = sum((wanted & got).values())
    extra = sum((got - wanted).values())
    return {
        "page": os.path.basename(page),
        "bytes": len(text.encode()),
        "reference words": len(reference.words),
        "text kept": kept / max(1, len(reference.words)),
        "extra words": extra / max(1, len(ours)),
        "structure": {key: (counts[key], reference.counts[key]) for key in sorted(set(reference.counts) | set(counts))},
        "fixpoint": same_document and same_html,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quire", default=".build/release/quire")
    parser.add_argument("pages", nargs="+")
    arguments = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as directory:
        print("| page | bytes | reference words | text kept | extra words | structure kept (Quire/reference) | fixpoint |")
        print("|---|---:|---:|---:|---:|---|---|")
        for page in arguments.pages:
            row = measure(arguments.quire, page, directory)
            structure = ", ".join(f"{key} {ours}/{theirs}" for key, (ours, theirs) in row["structure"].items())
            print(f"| {row['page']} | {row['bytes']} | {row['reference words']} | {row['text kept']:.2%} | "
                  f"{row['extra words']:.2%} | {structure} | {'yes' if row['fixpoint'] else 'NO'} |")
            failed = failed or not row["fixpoint"]
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
