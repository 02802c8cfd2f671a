#!/usr/bin/env python3
"""Quire's peer benchmark: replays one editing trace into Loro (PyPI loro) and Yrs (PyPI pycrdt)
and prints one JSON object {"loro": {...}, "yrs": {...}} for CRDTBenchmark's side-by-side table.

Usage: python peer_bench.py TRACE.json.gz [--json-out FILE] [--bin-out DIR]
Metrics (times: best of REPEATS, time.perf_counter):
  replay_s              one commit/transaction per trace transaction
  one_commit_s          a single commit/transaction around the whole trace
  snapshot_bytes        Loro: ExportMode.Snapshot(); Yrs: full-state update (its snapshot)
  load_s                fresh doc imports the snapshot, then reads the text
  export_snapshot_s     Loro: ExportMode.Snapshot() of the replayed document
  updates_bytes         all updates from the empty version as one blob
  export_updates_s      Loro: ExportMode.Updates(empty version) of the replayed document
  import_all_s          fresh doc imports that blob
  update_bytes_per_txn  mean size of the update each transaction emits
  json_bytes            Loro: export_json_updates of the whole history (written to --json-out FILE
                        so that Quire imports the very same JSON)
  import_json_s         Loro: a fresh doc imports that JSON text (parse included)
With --bin-out DIR, Loro's updates blob and snapshot are written to DIR/updates.bin and
DIR/snapshot.bin, so that Quire imports the very same bytes.
"""
import gc
import gzip
import json
import sys
import time

REPEATS = 3


def best(fn, repeats=REPEATS):
    fastest, result = None, None
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - start
        fastest = elapsed if fastest is None else min(fastest, elapsed)
    return fastest, result


def edits(trace):
    return [[(p[0], p[1], p[2]) for p in txn["patches"]] for txn in trace["txns"]]


def apply_patches(patches, delete_fn, insert_fn):
    for pos, delete, insert in patches:
        if delete:
            delete_fn(pos, delete)
        if insert:
            insert_fn(pos, insert)


def bench_loro(txns, end):
    import loro

    def fresh():
        doc = loro.LoroDoc()
        doc.peer_id = 1
        return doc

    def replay(per_txn):
        doc = fresh()
        text = doc.get_text("text")
        # Inline loop (no helper call per transaction) so the timing carries no extra overhead.
        for patches in txns:
            for pos, delete, insert in patches:
                if delete:
                    text.delete(pos, delete)
                if insert:
                    text.insert(pos, insert)
            if per_txn:
                doc.commit()
        doc.commit()
        return doc

    out = {}
    out["replay_s"], doc = best(lambda: replay(True))
    assert doc.get_text("text").to_string() == end, "loro replay diverged"
    out["one_commit_s"], _ = best(lambda: replay(False))
    out["export_snapshot_s"], snapshot = best(lambda: doc.export(loro.ExportMode.Snapshot()))
    out["snapshot_bytes"] = len(snapshot)

    def load():
        d = fresh()
        d.import_(snapshot)
        return d.get_text("text").to_string()

    out["load_s"], text = best(load, 10)
    assert text == end
    out["export_updates_s"], updates = best(lambda: doc.export(loro.ExportMode.Updates(loro.VersionVector())))
    out["updates_bytes"] = len(updates)
    if BIN_OUT:
        with open(BIN_OUT + "/updates.bin", "wb") as f:
            f.write(bytes(updates))
        with open(BIN_OUT + "/snapshot.bin", "wb") as f:
            f.write(bytes(snapshot))

    def import_all():
        d = fresh()
        d.import_(updates)
        return d

    out["import_all_s"], d = best(import_all)
    assert d.get_text("text").to_string() == end
    sizes = []
    d = fresh()
    sub = d.subscribe_local_update(lambda b: (sizes.append(len(b)), True)[1])
    text = d.get_text("text")
    for patches in txns:
        apply_patches(patches, text.delete, text.insert)
        d.commit()
    del sub
    out["update_bytes_per_txn"] = sum(sizes) / max(1, len(txns))
    json_text = doc.export_json_updates(loro.VersionVector(), doc.oplog_vv)
    out["json_bytes"] = len(json_text.encode("utf-8"))
    if JSON_OUT:
        with open(JSON_OUT, "w", encoding="utf-8") as f:
            f.write(json_text)

    def import_json():
        d = fresh()
        d.import_json_updates(json_text)
        return d

    out["import_json_s"], d = best(import_json)
    assert d.get_text("text").to_string() == end
    return out


def bench_yrs(txns, end):
    import pycrdt

    def fresh():
        return pycrdt.Doc(client_id=1)

    def delete_range(text):
        def delete(pos, count):
            del text[pos:pos + count]
        return delete

    def replay(per_txn):
        doc = fresh()
        text = doc.get("text", type=pycrdt.Text)
        delete = delete_range(text)
        # Inline loops (no helper call per transaction) so the timing carries no extra overhead.
        if per_txn:
            for patches in txns:
                with doc.transaction():
                    for pos, count, insert in patches:
                        if count:
                            del text[pos:pos + count]
                        if insert:
                            text.insert(pos, insert)
        else:
            with doc.transaction():
                for patches in txns:
                    for pos, count, insert in patches:
                        if count:
                            del text[pos:pos + count]
                        if insert:
                            text.insert(pos, insert)
        return doc

    out = {}
    out["replay_s"], doc = best(lambda: replay(True), 1)
    assert str(doc.get("text", type=pycrdt.Text)) == end, "yrs replay diverged"
    if sum(len(p) for p in txns) < 50_000:
        out["one_commit_s"], _ = best(lambda: replay(False), 1)
    snapshot = doc.get_update()
    out["snapshot_bytes"] = len(snapshot)
    out["updates_bytes"] = len(snapshot)

    def load():
        d = fresh()
        d.apply_update(snapshot)
        return str(d.get("text", type=pycrdt.Text))

    out["load_s"], text = best(load, 10)
    assert text == end
    out["import_all_s"], _ = best(load)
    sizes = []
    d = fresh()
    sub = d.observe(lambda event: sizes.append(len(event.update)))
    text = d.get("text", type=pycrdt.Text)
    delete = delete_range(text)
    for patches in txns:
        with d.transaction():
            apply_patches(patches, delete, text.insert)
    d.unobserve(sub)
    out["update_bytes_per_txn"] = sum(sizes) / max(1, len(txns))
    return out


JSON_OUT = None
BIN_OUT = None


def main():
    global JSON_OUT, BIN_OUT
    if "--json-out" in sys.argv:
        JSON_OUT = sys.argv[sys.argv.index("--json-out") + 1]
    if "--bin-out" in sys.argv:
        BIN_OUT = sys.argv[sys.argv.index("--bin-out") + 1]
    with gzip.open(sys.argv[1], "rt", encoding="utf-8") as f:
        trace = json.load(f)
    txns = edits(trace)
    end = trace["endContent"]
    result = {}
    for name, fn in (("loro", bench_loro), ("yrs", bench_yrs)):
        try:
            result[name] = fn(txns, end)
        except Exception as error:  # report, never hide: the table shows the library as missing
            print(f"{name}: {error!r}", file=sys.stderr)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
