#!/usr/bin/env python3
"""Loro's counterpart of `quire trace replay TRACE.json.gz`, for whole-process comparisons.

It does what the Quire command does, in the same order and in one process: decompress the trace,
parse its JSON, replay every patch into a LoroText with a commit per trace transaction, export a
snapshot, and check the final text against endContent (exit status 1 when it differs). It prints
the same lines as `quire trace replay`, so the two commands can be timed side by side as whole
processes, for example with `/usr/bin/time -v` for the peak memory (maximum resident set size):

  /usr/bin/time -v .venv-interop/bin/python Benchmarks/peers/trace_replay.py automerge-paper.json.gz
  /usr/bin/time -v .build/release/quire trace replay automerge-paper.json.gz

Sequential traces only (josephg/editing-traces' sequential_traces format).
"""
import gzip
import json
import os
import sys
import time

import loro


def main(path):
    with gzip.open(path, "rb") as compressed:
        trace = json.loads(compressed.read())
    doc = loro.LoroDoc()
    doc.peer_id = 1
    text = doc.get_text("text")
    start = trace.get("startContent", "")
    if start:
        text.insert(0, start)
        doc.commit()
    patches = 0
    began = time.perf_counter()
    for txn in trace["txns"]:
        for pos, delete, insert in txn["patches"]:
            if delete:
                text.delete(pos, delete)
            if insert:
                text.insert(pos, insert)
            patches += 1
        doc.commit()
    elapsed = time.perf_counter() - began
    snapshot = doc.export(loro.ExportMode.Snapshot())
    matches = text.to_string() == trace["endContent"]
    print(f"trace: {os.path.basename(path)} (sequential)")
    print(f"ops: {patches} patches in {len(trace['txns'])} transactions")
    print(f"replay: {elapsed:.3f} s")
    print(f"snapshot: {len(snapshot)} bytes")
    print(f"final text equals endContent: {'yes' if matches else 'NO'}")
    return 0 if matches else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
