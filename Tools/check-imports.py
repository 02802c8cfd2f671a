#!/usr/bin/env python3
"""Fails when a target imports one of the package's own modules without declaring it, or declares
one it never imports.

SwiftPM lets a target import any module that happens to be built before it (a dependency of a
dependency), so an undeclared import compiles today and breaks as soon as the graph changes, and
the manifest stops saying who uses what. This script reads the manifest through
`swift package dump-package`, scans every Swift file of every target for `import X`, and lists
each X that is one of the package's modules (its targets, or for a package depending on Quire,
the products it takes from it) but is not among the target's declared dependencies; and each
declared dependency on one of those modules that no file of the target imports (an executable is
exempt: a test target depends on one to have it built, not to import it).

    Tools/check-imports.py [PACKAGE_DIR ...]     (default: the repository and Benchmarks/)

Exit status 0 when imports and declarations agree, 1 with one line per problem otherwise, 2 when
a manifest cannot be read.
"""

import json
import os
import re
import subprocess
import sys

# `import X`, `@testable import X`, `import struct X.Y`, `public import X`, `@_spi(S) import X`.
IMPORT = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)"
)

DEFAULT_DIRECTORY = {"test": "Tests"}


def dump(package_dir):
    swift = os.environ.get("SWIFT", "swift")
    result = subprocess.run(
        [swift, "package", "--package-path", package_dir, "dump-package"],
        capture_output=True, text=True,
    )
    if result.returncode != 0:
        sys.stderr.write(f"check-imports: cannot read the manifest of {package_dir}:\n{result.stderr}")
        sys.exit(2)
    return json.loads(result.stdout)


def swift_files(directory):
    for root, _, files in os.walk(directory):
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(root, name)


def imports(path):
    """(line number, module) for every import statement outside block comments."""
    found = []
    depth = 0
    with open(path, encoding="utf-8") as source:
        for number, line in enumerate(source, 1):
            if depth == 0:
                match = IMPORT.match(line)
                if match:
                    found.append((number, match.group(1)))
            # Good enough for the comments Swift files hold: count openers and closers outside
            # line comments.
            code = line.split("//", 1)[0]
            depth = max(0, depth + code.count("/*") - code.count("*/"))
    return found


def declared(target):
    names = set()
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                names.add(dependency[kind][0])
    return names


def check(package_dir):
    manifest = dump(package_dir)
    targets = manifest["targets"]
    # The modules that belong to this package, and, for a package that depends on a local Quire
    # checkout (the benchmarks), the modules it can take from there.
    ours = {target["name"] for target in targets if target["type"] not in ("test", "executable")}
    for dependency in manifest.get("dependencies", []):
        location = dependency.get("fileSystem", [{}])[0].get("path")
        if location:
            ours |= {
                product["name"] for product in dump(location)["products"]
                if "executable" not in product["type"]
            }
    problems = []
    for target in targets:
        path = target.get("path") or os.path.join(
            DEFAULT_DIRECTORY.get(target["type"], "Sources"), target["name"]
        )
        directory = os.path.join(package_dir, path)
        allowed = declared(target) | {target["name"]}
        used = set()
        for file in swift_files(directory):
            for number, module in imports(file):
                used.add(module)
                if module in ours and module not in allowed:
                    shown = os.path.relpath(file)
                    problems.append(
                        f"{shown}:{number}: target {target['name']} imports {module} but does not declare it"
                    )
        for module in sorted(declared(target) & ours - used):
            problems.append(
                f"{os.path.relpath(directory)}: target {target['name']} declares {module} but no file imports it"
            )
    return problems


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    packages = sys.argv[1:] or [root, os.path.join(root, "Benchmarks")]
    problems = []
    for package in packages:
        problems += check(package)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-imports: {len(problems)} problem(s); make Package.swift declare exactly what each target imports",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
