#!/usr/bin/env python3
"""A real Loro peer (PyPI loro, pinned in requirements.txt) for Quire's interop tests.

It speaks JSON lines on stdin/stdout: one request object per line, one reply object per line.
Every reply has "ok": true, or "ok": false with "error". Documents are named by the caller.

Requests ("cmd" and its fields):
  new        doc, peer (decimal string)          create a document with that peer ID
  styles     doc, styles: {key: "after"|"before"|"both"|"none"}   replace the text style config
             (config_text_style), e.g. with the expand rules of Quire's document schema
  edit       doc, ops: [op]                      apply scripted edits, then commit
  random     doc, seed, count, all               apply `count` random edits (random.Random(seed)), commit;
                                                 with "all", also movable list 'tasks' and counter 'hits' 
  export     doc, from: {peer: end}              -> json: export_json_updates(from, oplog_vv)
  import     doc, json                           import_json_updates
  export_bin doc, mode ("updates", "snapshot", "shallow"), from: {peer: end} (updates),
             frontiers: ["counter@peer"] (shallow)  -> bytes: base64 of export(ExportMode…)
  import_bin doc, bytes (base64)                 import_; -> pending: whether changes wait
  state      doc, texts: [cid]                   -> deep (deep value, bytes as arrays), deltas
                                                   {cid: [{insert, attributes?}]}, vv {peer: end},
                                                   frontiers ["counter@peer"]
  drop       doc
  cursor     doc, container, pos, side ("left", "middle", "right")  -> bytes: Cursor.encode()
  cursor_pos doc, bytes                          -> pos: get_cursor_pos(Cursor.decode(bytes))
  eph        store, action ("new" timeout, "set" key value, "delete" key, "encode_all",
             "apply" bytes, "all")               -> bytes / states of a loro.EphemeralStore
Scripted ops (positions in Unicode scalars; containers are root names unless "cid:" strings):
  {"op":"insert","text":T,"pos":P,"container":C}   {"op":"delete","pos":P,"len":N,"container":C}
  {"op":"mark","start":S,"end":E,"key":K,"value":V,"container":C}
  {"op":"unmark","start":S,"end":E,"key":K,"container":C}
  {"op":"map_set","key":K,"value":V,"container":C}   {"op":"map_delete","key":K,"container":C}
  {"op":"map_text","key":K,"container":C}            (a child text under the key)
  {"op":"list_insert","pos":P,"value":V,"container":C}  {"op":"list_delete","pos":P,"len":N,"container":C}
  {"op":"tree_create","parent":ID|null,"index":I|null,"container":C} -> ids: ["counter@peer"]
  {"op":"tree_move","node":ID,"parent":ID|null,"index":I,"container":C}
  {"op":"tree_delete","node":ID,"container":C}       {"op":"tree_meta","node":ID,"key":K,"value":V,"container":C}
  {"op":"tree_meta_delete","node":ID,"key":K,"container":C}
  {"op":"list_map","pos":P,"container":C}            (a child map in a list)
  {"op":"movable_insert","pos":P,"value":V,"container":C}  {"op":"movable_delete","pos":P,"len":N,"container":C}
  {"op":"counter","value":X,"container":C}
"""
import base64
import json
import random
import sys

import loro

# The mark keys and expand rules Quire's tests configure on both sides.
STYLES = {
    "bold": loro.ExpandType.After,
    "italic": loro.ExpandType.Both,
    "comment": loro.ExpandType.Before,
    "link": loro.ExpandType.Null,
}
TYPES = {"Text": loro.ContainerType.Text, "List": loro.ContainerType.List,
         "Map": loro.ContainerType.Map, "Tree": loro.ContainerType.Tree}

docs = {}


def new_doc(peer):
    doc = loro.LoroDoc()
    doc.peer_id = int(peer)
    config = loro.StyleConfigMap()
    for key, expand in STYLES.items():
        config.insert(key, expand)
    doc.config_text_style(config)
    return doc


def container_id(text):
    """'cid:root-NAME:Type' or 'cid:C@P:Type' -> loro.ContainerID."""
    body, kind = text[4:].rsplit(":", 1)
    if body.startswith("root-"):
        return loro.ContainerID.Root(name=body[5:], container_type=TYPES[kind]())
    counter, peer = body.split("@")
    return loro.ContainerID.Normal(peer=int(peer), counter=int(counter), container_type=TYPES[kind]())


def text_of(doc, name):
    return doc.get_text(container_id(name)) if name.startswith("cid:") else doc.get_text(name)


def tree_id(text):
    counter, peer = text.split("@")
    return loro.TreeID(int(peer), int(counter))


def id_text(tid):
    return f"{tid.counter}@{tid.peer}"


# Quire's document schema (Modules/QuireBridge/DocumentSchema.swift): a tree of blocks, and one
# shared text where every text block's run starts with U+2029 marked "block" = "counter@peer".
# These ops edit a block's run by the block's ID, as a Loro app on that schema would:
#   {"op":"block_insert","block":ID,"offset":N,"text":T,"container":TEXT}
#   {"op":"block_mark","block":ID,"start":S,"end":E,"key":K,"value":V,"container":TEXT}
#   {"op":"block_create","tree":TREE,"container":TEXT,"parent":ID|null,"index":I|null,
#    "after":ID|null,"meta":{K: V},"text":T}   -> ids: ["counter@peer"]
#      a tree node with that meta, and its marker (then T) where the run of block `after` ends
#      (at the text's start without one)
MARKER = "\u2029"


def block_runs(text):
    """[(block ID text, marker position, end of the run)] in text order, positions in scalars."""
    runs, pos = [], 0
    for item in text.to_delta():
        owner = (item.attributes or {}).get("block")
        for ch in item.insert:
            if ch == MARKER and owner is not None and all(r[0] != owner for r in runs):
                if runs:
                    runs[-1][2] = pos
                runs.append([owner, pos, None])
            pos += 1
    if runs:
        runs[-1][2] = pos
    return runs


def run_of(text, block):
    for owner, marker, end in block_runs(text):
        if owner == block:
            return marker, end
    raise ValueError(f"block {block} has no marker in the text")


def block_insert(doc, op, out):
    marker, _ = run_of(text_of(doc, op["container"]), op["block"])
    text_of(doc, op["container"]).insert(marker + 1 + op["offset"], op["text"])


def block_mark(doc, op, out):
    marker, _ = run_of(text_of(doc, op["container"]), op["block"])
    text_of(doc, op["container"]).mark(marker + 1 + op["start"], marker + 1 + op["end"], op["key"], op["value"])


def block_create(doc, op, out):
    tree, text = doc.get_tree(op["tree"]), text_of(doc, op["container"])
    parent = tree_id(op["parent"]) if op.get("parent") else None
    node = tree.create_at(op["index"], parent) if op.get("index") is not None else tree.create(parent)
    meta = tree.get_meta(node)
    for key, value in op.get("meta", {}).items():
        meta.insert(key, value)
    at = run_of(text, op["after"])[1] if op.get("after") else 0
    text.insert(at, MARKER + op.get("text", ""))
    text.mark(at, at + 1, "block", id_text(node))
    out.setdefault("ids", []).append(id_text(node))


SCHEMA_OPS = {"block_insert": block_insert, "block_mark": block_mark, "block_create": block_create}
EXPANDS = {"after": loro.ExpandType.After, "before": loro.ExpandType.Before,
           "both": loro.ExpandType.Both, "none": loro.ExpandType.Null}


def plain(value):
    """A deep value as JSON-ready data: bytes as arrays, as Loro serializes binary."""
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def apply_op(doc, op, out):
    if op["op"] in SCHEMA_OPS:
        return SCHEMA_OPS[op["op"]](doc, op, out)
    kind, name = op["op"], op.get("container", "")
    if kind == "insert":
        text_of(doc, name).insert(op["pos"], op["text"])
    elif kind == "delete":
        text_of(doc, name).delete(op["pos"], op["len"])
    elif kind == "mark":
        text_of(doc, name).mark(op["start"], op["end"], op["key"], op["value"])
    elif kind == "unmark":
        text_of(doc, name).unmark(op["start"], op["end"], op["key"])
    elif kind == "map_set":
        doc.get_map(name).insert(op["key"], op["value"])
    elif kind == "map_delete":
        doc.get_map(name).delete(op["key"])
    elif kind == "map_text":
        child = doc.get_map(name).insert_container(op["key"], loro.LoroText())
        out.setdefault("cids", []).append(str_cid(child.id))
    elif kind == "list_insert":
        doc.get_list(name).insert(op["pos"], op["value"])
    elif kind == "list_delete":
        doc.get_list(name).delete(op["pos"], op["len"])
    elif kind == "tree_create":
        tree = doc.get_tree(name)
        parent = tree_id(op["parent"]) if op.get("parent") else None
        node = tree.create_at(op["index"], parent) if op.get("index") is not None else tree.create(parent)
        out.setdefault("ids", []).append(id_text(node))
    elif kind == "tree_move":
        parent = tree_id(op["parent"]) if op.get("parent") else None
        doc.get_tree(name).mov_to(tree_id(op["node"]), op["index"], parent)
    elif kind == "tree_delete":
        doc.get_tree(name).delete(tree_id(op["node"]))
    elif kind == "tree_meta":
        doc.get_tree(name).get_meta(tree_id(op["node"])).insert(op["key"], op["value"])
    elif kind == "tree_meta_delete":
        doc.get_tree(name).get_meta(tree_id(op["node"])).delete(op["key"])
    elif kind == "list_map":
        doc.get_list(name).insert_container(op["pos"], loro.LoroMap())
    elif kind == "movable_insert":
        doc.get_movable_list(name).insert(op["pos"], op["value"])
    elif kind == "movable_delete":
        doc.get_movable_list(name).delete(op["pos"], op["len"])
    elif kind == "counter":
        doc.get_counter(name).increment(op["value"])
    else:
        raise ValueError(f"unknown op {kind}")


def str_cid(cid):
    """loro.ContainerID -> 'cid:…' text."""
    if "Root" in type(cid).__name__:
        return f"cid:root-{cid.name}:{type_name(cid.container_type)}"
    return f"cid:{cid.counter}@{cid.peer}:{type_name(cid.container_type)}"


def type_name(kind):
    for name, cls in TYPES.items():
        if isinstance(kind, cls):
            return name
    return str(kind)


WORDS = ["a", "b", "c", " ", "\n", "é", "中", "😀", "👍🏽", "xy"]


def alive_nodes(tree):
    return [n for n in tree.nodes() if not tree.is_node_deleted(n)]


def is_ancestor(tree, ancestor, node):
    """Whether `ancestor` is `node` or above it (a move there would be a cycle)."""
    while node is not None:
        if node == ancestor:
            return True
        node = tree.parent(node)
    return False


def random_edits(doc, rng, count, every=False):
    """Random edits over the containers Quire's interop tests share: text 'body' (with marks),
    list 'items', map 'meta' (values and child texts), tree 'blocks' (with node meta); with
    `every`, also movable list 'tasks' (insert, delete, move, set, child texts) and counter 'hits'."""
    text, items, meta, tree = doc.get_text("body"), doc.get_list("items"), doc.get_map("meta"), doc.get_tree("blocks")
    tasks, hits = doc.get_movable_list("tasks"), doc.get_counter("hits")
    for _ in range(count):
        if every and rng.random() < 0.3:
            movable_edit(tasks, hits, rng)
            continue
        choice = rng.randrange(100)
        n = text.len_unicode
        if choice < 30:
            s = "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
            text.insert(rng.randint(0, n), s)
        elif choice < 42 and n > 0:
            a = rng.randrange(n)
            text.delete(a, rng.randint(1, min(4, n - a)))
        elif choice < 55 and n > 0:
            a = rng.randrange(n)
            b = rng.randint(a + 1, n)
            key = rng.choice(list(STYLES))
            if rng.random() < 0.3:
                text.unmark(a, b, key)
            else:
                text.mark(a, b, key, f"u{rng.randrange(3)}" if key == "link" else True)
        elif choice < 63:
            size = len(items)
            if size > 0 and rng.random() < 0.35:
                a = rng.randrange(size)
                items.delete(a, rng.randint(1, min(3, size - a)))
            else:
                items.insert(rng.randint(0, size), rng.choice([rng.randrange(100), "v" + str(rng.randrange(9))]))
        elif choice < 72:
            key = f"k{rng.randrange(4)}"
            r = rng.randrange(4)
            if r == 0:
                if meta.get(key) is not None:
                    meta.delete(key)
            elif r == 1:
                child = meta.insert_container(key, loro.LoroText())
                child.insert(0, rng.choice(WORDS))
            else:
                meta.insert(key, rng.randrange(9) if rng.random() < 0.5 else rng.choice(WORDS))
        else:
            nodes = alive_nodes(tree)
            r = rng.randrange(10)
            if r < 4 or not nodes:
                parent = None if not nodes or rng.random() < 0.3 else rng.choice(nodes)
                siblings = tree.children(parent) or []
                tree.create_at(rng.randint(0, len(siblings)), parent)
            elif r < 8:
                node = rng.choice(nodes)
                parent = None if rng.random() < 0.2 else rng.choice(nodes)
                if parent is None or not is_ancestor(tree, node, parent):
                    siblings = [s for s in (tree.children(parent) or []) if s != node]
                    tree.mov_to(node, rng.randint(0, len(siblings)), parent)
            elif r < 9:
                tree.delete(rng.choice(nodes))
            else:
                tree.get_meta(rng.choice(nodes)).insert("type", rng.choice(["p", "h1", "li"]))
    doc.commit()


def movable_edit(tasks, hits, rng):
    """One random edit of the movable list or the counter (the mix Quire's tests make too)."""
    r = rng.randrange(10)
    size = len(tasks)
    if r == 0:
        hits.increment(rng.choice([1, 2, -1, 0.5]))
    elif r < 4 or size == 0:
        if rng.random() < 0.15:
            child = tasks.insert_container(rng.randint(0, size), loro.LoroText())
            child.insert(0, rng.choice(WORDS))
        else:
            tasks.insert(rng.randint(0, size), rng.choice([rng.randrange(100), "t" + str(rng.randrange(9))]))
    elif r < 6:
        a = rng.randrange(size)
        tasks.delete(a, rng.randint(1, min(2, size - a)))
    elif r < 8:
        a, b = rng.randrange(size), rng.randrange(size)
        if a != b:
            tasks.mov(a, b)
    else:
        tasks.set(rng.randrange(size), rng.choice([rng.randrange(100), "s" + str(rng.randrange(9))]))


def delta(doc, name):
    out = []
    for item in text_of(doc, name).to_delta():
        entry = {"insert": item.insert}
        if item.attributes:
            entry["attributes"] = plain(item.attributes)
        out.append(entry)
    return out


stores = {}


def ephemeral(request):
    action, name = request["action"], request["store"]
    if action == "new":
        stores[name] = loro.EphemeralStore(request["timeout"])
        return {}
    store = stores[name]
    if action == "set":
        store.set(request["key"], request["value"])
    elif action == "delete":
        store.delete(request["key"])
    elif action == "encode_all":
        return {"bytes": base64.b64encode(bytes(store.encode_all())).decode("ascii")}
    elif action == "apply":
        store.apply(base64.b64decode(request["bytes"]))
    elif action == "all":
        return {"states": plain(store.get_all_states())}
    return {}


def handle(request):
    cmd = request["cmd"]
    if cmd == "eph":
        return ephemeral(request)
    if cmd == "new":
        docs[request["doc"]] = new_doc(request["peer"])
        return {}
    doc = docs[request["doc"]]
    if cmd == "styles":
        config = loro.StyleConfigMap()
        for key, expand in request["styles"].items():
            config.insert(key, EXPANDS[expand])
        doc.config_text_style(config)
        return {}
    if cmd == "edit":
        out = {}
        for op in request["ops"]:
            apply_op(doc, op, out)
        doc.commit()
        return out
    if cmd == "random":
        random_edits(doc, random.Random(request["seed"]), request["count"], request.get("all", False))
        return {}
    if cmd == "export":
        start = loro.VersionVector()
        for peer, end in request.get("from", {}).items():
            if end > 0:
                start.set_end(loro.ID(int(peer), end))
        return {"json": doc.export_json_updates(start, doc.oplog_vv)}
    if cmd == "import":
        status = doc.import_json_updates(request["json"])
        return {"pending": status.pending is not None}
    if cmd == "export_bin":
        mode = request["mode"]
        if mode == "updates":
            start = loro.VersionVector()
            for peer, end in request.get("from", {}).items():
                if end > 0:
                    start.set_end(loro.ID(int(peer), end))
            blob = doc.export(loro.ExportMode.Updates(start))
        elif mode == "snapshot":
            blob = doc.export(loro.ExportMode.Snapshot())
        elif mode == "shallow":
            ids = [loro.ID(int(p), int(c)) for c, p in (f.split("@") for f in request["frontiers"])]
            blob = doc.export(loro.ExportMode.ShallowSnapshot(loro.Frontiers.from_ids(ids)))
        else:
            raise ValueError(f"unknown export mode {mode}")
        return {"bytes": base64.b64encode(bytes(blob)).decode("ascii")}
    if cmd == "import_bin":
        status = doc.import_(base64.b64decode(request["bytes"]))
        return {"pending": status.pending is not None}
    if cmd == "state":
        vv = {str(peer): end for peer, end in version_ends(doc.oplog_vv).items()}
        return {
            "deep": plain(doc.get_deep_value()),
            "deltas": {name: delta(doc, name) for name in request.get("texts", [])},
            "vv": vv,
            "frontiers": [f"{i.counter}@{i.peer}" for i in frontier_ids(doc.oplog_frontiers)],
        }
    if cmd == "cursor":
        side = {"left": loro.Side.Left, "middle": loro.Side.Middle, "right": loro.Side.Right}[request["side"]]
        cursor = text_of(doc, request["container"]).get_cursor(request["pos"], side)
        return {"bytes": base64.b64encode(bytes(cursor.encode())).decode("ascii")}
    if cmd == "cursor_pos":
        cursor = loro.Cursor.decode(base64.b64decode(request["bytes"]))
        return {"pos": doc.get_cursor_pos(cursor).current.pos}
    if cmd == "drop":
        del docs[request["doc"]]
        return {}
    raise ValueError(f"unknown command {cmd}")


def version_ends(vv):
    """VersionVector -> {peer: end}, parsed from its text form 'VersionVector({peer: end, …})'."""
    text = str(vv)
    body = text[text.index("{") + 1:text.rindex("}")]
    out = {}
    for part in body.split(","):
        if part.strip():
            peer, end = part.split(":")
            out[int(peer)] = int(end)
    return out


def frontier_ids(frontiers):
    """Frontiers -> [loro.ID], parsed from its text form 'Frontiers([counter@peer, …])'."""
    text = str(frontiers)
    body = text[text.index("[") + 1:text.rindex("]")]
    ids = []
    for part in body.split(","):
        part = part.strip()
        if part:
            counter, peer = part.split("@")
            ids.append(loro.ID(int(peer), int(counter)))
    return ids


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            reply = handle(json.loads(line))
            reply["ok"] = True
        except Exception as error:  # reported to the Swift side, which fails the test with it
            reply = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
