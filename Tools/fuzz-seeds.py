#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora under Fuzz/corpus/seeds/<harness>/ from the test fixtures.

Seeds are derived, not committed: each run rebuilds them from Tests/Fixtures, Examples and the
YAML texts of the config tests. Quire's binary seeds come from the CRDT harness itself (it writes
them when QUIRE_FUZZ_WRITE_SEEDS is set), so the path of the built harnesses is an argument.

usage: Tools/fuzz-seeds.py [BIN_DIR]
"""
import gzip
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "Tests" / "Fixtures"
CORPUS = ROOT / "Fuzz" / "corpus" / "seeds"
# Larger seeds only slow every mutation down; libFuzzer's -max_len caps inputs anyway.
MAX_SEED = 64 * 1024
TRACE_TRANSACTIONS = 40


def write(harness, data, name=None):
    if isinstance(data, str):
        data = data.encode("utf-8")
    data = data[:MAX_SEED]
    directory = CORPUS / harness
    directory.mkdir(parents=True, exist_ok=True)
    (directory / (name or hashlib.sha1(data).hexdigest())).write_bytes(data)


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    for path in sorted((FIXTURES / "lexical-json").glob("*.json")) + sorted((ROOT / "Examples" / "documents").glob("*.json")):
        write("LexicalJSONFuzz", path.read_bytes(), path.name)

    for path in sorted((FIXTURES / "markdown").rglob("*.md")):
        write("MarkdownFuzz", path.read_bytes(), path.name)
    for path in sorted((FIXTURES / "commonmark").glob("*.json")):
        for example in json.loads(path.read_text()):
            write("MarkdownFuzz", example["markdown"])

    write("ConfigFuzz", (ROOT / "config.yaml").read_bytes(), "config.yaml")
    # The YAML texts the config tests load: every multi-line string literal with a `version:` key.
    for path in sorted((ROOT / "Tests" / "QuireConfigTests").glob("*.swift")):
        for literal in re.findall(r'"""\n(.*?)\n\s*"""', path.read_text(), re.S):
            if "version:" in literal or "plugins:" in literal:
                write("ConfigFuzz", re.sub(r"^ {8}", "", literal, flags=re.M))

    write("LoroJSONFuzz", (FIXTURES / "loro-json" / "sample-updates.json").read_bytes(), "sample-updates.json")

    for path in sorted((FIXTURES / "loro-binary").glob("*.bin")):
        write("CRDTBinaryFuzz", path.read_bytes(), path.name)
    if len(sys.argv) > 1:
        harness = pathlib.Path(sys.argv[1]) / "CRDTBinaryFuzz"
        (CORPUS / "CRDTBinaryFuzz").mkdir(parents=True, exist_ok=True)
        environment = dict(os.environ, QUIRE_FUZZ_WRITE_SEEDS=str(CORPUS / "CRDTBinaryFuzz"),
                           QUIRE_FUZZ_LORO_JSON=str(FIXTURES / "loro-json" / "sample-updates.json"))
        subprocess.run([str(harness)], env=environment, check=True)

    # The traces are megabytes; their first transactions keep every shape (patches, parents,
    # agents) at a size a mutation can afford.
    for path in sorted((FIXTURES / "traces").glob("*.json.gz")):
        trace = json.loads(gzip.decompress(path.read_bytes()))
        trace["txns"] = trace["txns"][:TRACE_TRANSACTIONS]
        trace["endContent"] = ""
        write("TraceFuzz", json.dumps(trace, ensure_ascii=False), path.name[:-3])

    # Edit scripts: the steps each CLI test sends (raw string literals starting {"op"), one script
    # per test function, and the example collaboration script (its sync steps are refused lines).
    for path in sorted((ROOT / "Tests" / "QuireCLITests").glob("*.swift")):
        for index, body in enumerate(re.split(r"@Test", path.read_text())[1:]):
            steps = re.findall(r'#"(\{"op".*?\})"#', body)
            if steps:
                write("EditScriptFuzz", "\n".join(steps) + "\n", f"{path.stem}-{index}.jsonl")
    for path in sorted((ROOT / "Examples" / "collab").glob("*.jsonl")):
        write("EditScriptFuzz", path.read_bytes(), path.name)

    for harness in sorted(p.name for p in CORPUS.iterdir()):
        print(f"{harness}: {len(list((CORPUS / harness).iterdir()))} seeds")


main()
