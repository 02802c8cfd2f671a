#!/usr/bin/env python3
"""Writes Tests/Fixtures/loro-json/: JSON updates produced by real Loro (loro==1.17.1) and what
Loro reads back from them. Run: .venv-interop/bin/python Tests/Interop/make_fixtures.py

sample-updates.json   doc.export_json_updates(VersionVector(), oplog_vv) of the session below,
                      exactly as Loro wrote it
sample-expected.json  {"deep": get_deep_value(), "delta": to_delta() of "text"} of a fresh doc
                      that imported sample-updates.json

and Tests/Fixtures/loro-binary/ from the same session plus a movable list and a counter:

sample-updates.bin    export(ExportMode.Updates(VersionVector())), FastUpdates
sample-snapshot.bin   export(ExportMode.Snapshot()), FastSnapshot
sample-shallow.bin    export(ExportMode.ShallowSnapshot(frontiers after the first commit))
sample-expected.json  {"deep", "delta"} of a fresh doc that imported sample-updates.bin
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import loro  # noqa: E402
from loro_peer import new_doc, delta, plain  # noqa: E402

out_dir = os.path.join(os.path.dirname(__file__), "..", "Fixtures", "loro-json")

a, b = new_doc("7"), new_doc("42")
text = a.get_text("text")
text.insert(0, "Hello world")
a.commit()
text.mark(0, 5, "bold", True)
text.mark(6, 11, "link", "https://loro.dev")
text.insert(5, "!")
text.delete(1, 2)
a.commit()
meta = a.get_map("meta")
meta.insert("title", "Notes")
meta.insert("count", 3)
meta.insert("ratio", 1.5)
child = meta.insert_container("caption", loro.LoroText())
child.insert(0, "nested")
items = a.get_list("items")
items.insert(0, "x")
items.insert(1, 2)
items.insert(2, True)
items.delete(0, 1)
tree = a.get_tree("blocks")
p1 = tree.create()
p2 = tree.create()
c1 = tree.create(p1)
tree.get_meta(p1).insert("type", "paragraph")
tree.mov(p2, p1)
tree.delete(c1)
a.commit()
# A concurrent peer: typing at the same spot, a concurrent mark, a map write and a tree move.
b.import_json_updates(a.export_json_updates(loro.VersionVector(), a.oplog_vv))
b.get_text("text").insert(0, ">> ")
b.get_text("text").mark(3, 6, "italic", True)
b.get_map("meta").insert("title", "Draft")
a.get_text("text").insert(0, "# ")
a.get_map("meta").delete("count")
a.commit()
b.commit()
a.import_json_updates(b.export_json_updates(a.oplog_vv, b.oplog_vv))
a.get_text("text").unmark(0, 4, "bold")
a.commit()

updates = a.export_json_updates(loro.VersionVector(), a.oplog_vv)
fresh = loro.LoroDoc()
fresh.import_json_updates(updates)
with open(os.path.join(out_dir, "sample-updates.json"), "w", encoding="utf-8") as f:
    f.write(updates)
with open(os.path.join(out_dir, "sample-expected.json"), "w", encoding="utf-8") as f:
    json.dump({"deep": plain(fresh.get_deep_value()), "delta": delta(fresh, "text")}, f, ensure_ascii=False, indent=1, sort_keys=True)
    f.write("\n")
print(updates[:200], "…")

# The binary fixtures: the same session, then a movable list and a counter edited by both peers.
bin_dir = os.path.join(os.path.dirname(__file__), "..", "Fixtures", "loro-binary")
os.makedirs(bin_dir, exist_ok=True)
shallow_root = a.oplog_frontiers
tasks = a.get_movable_list("tasks")
for i, v in enumerate(["one", "two", "three", "four"]):
    tasks.insert(i, v)
a.get_counter("hits").increment(2)
a.commit()
b.import_(a.export(loro.ExportMode.Updates(b.oplog_vv)))
b.get_movable_list("tasks").mov(0, 3)
b.get_movable_list("tasks").set(1, "TWO")
b.get_counter("hits").decrement(0.5)
a.get_movable_list("tasks").delete(2, 1)
a.get_movable_list("tasks").mov(2, 0)
a.commit()
b.commit()
a.import_(b.export(loro.ExportMode.Updates(a.oplog_vv)))
blobs = {
    "sample-updates.bin": a.export(loro.ExportMode.Updates(loro.VersionVector())),
    "sample-snapshot.bin": a.export(loro.ExportMode.Snapshot()),
    "sample-shallow.bin": a.export(loro.ExportMode.ShallowSnapshot(shallow_root)),
}
for name, blob in blobs.items():
    with open(os.path.join(bin_dir, name), "wb") as f:
        f.write(bytes(blob))
fresh = loro.LoroDoc()
fresh.import_(bytes(blobs["sample-updates.bin"]))
with open(os.path.join(bin_dir, "sample-expected.json"), "w", encoding="utf-8") as f:
    json.dump({"deep": plain(fresh.get_deep_value()), "delta": delta(fresh, "text")}, f, ensure_ascii=False, indent=1, sort_keys=True)
    f.write("\n")
print({name: len(bytes(blob)) for name, blob in blobs.items()})

