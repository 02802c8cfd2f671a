"""A Loro sync-protocol client written from loro-dev/protocol's protocol.md (version 1), with the
real `loro` package as its document and `websockets` as its transport. Quire's server tests run it
against `quire serve` (DocUpdate payloads are Loro's binary updates, `ExportMode.Updates`, as the
protocol specifies; versions are Loro's VersionVector.encode()).

usage: loro_sync_client.py --url ws://HOST:PORT/ --room R --peer P [--token T] [--state FILE]
                           [--append TEXT] [--expect TEXT] [--timeout SECONDS]

Joins with the version of its document (loaded from --state when the file exists), sends what
the server lacks, applies what it receives, appends TEXT to the root text "t" and waits for its
acknowledgement, waits until the text equals --expect, saves its state to --state, and prints one
JSON line: the text, how many changes it received, how many of their operations it already had
before joining, and the acknowledgement statuses.
"""
import argparse
import asyncio
import json
import os
import sys

import loro
import websockets

JOIN_REQUEST, JOIN_OK, JOIN_ERROR, DOC_UPDATE, FRAG_HEADER, FRAGMENT, ROOM_ERROR, LEAVE, ACK = range(9)
MAGIC = b"%LOR"


def uleb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def var_bytes(b):
    return uleb(len(b)) + bytes(b)


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def byte(self):
        b = self.data[self.pos]
        self.pos += 1
        return b

    def raw(self, n):
        if self.pos + n > len(self.data):
            raise ValueError(f"truncated at byte {self.pos}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def uleb(self):
        result, shift = 0, 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7

    def var_bytes(self):
        return self.raw(self.uleb())


def encode(room, msg_type, payload=b""):
    return MAGIC + var_bytes(room.encode()) + bytes([msg_type]) + payload


def decode(data):
    r = Reader(data)
    magic = r.raw(4)
    room = r.var_bytes().decode()
    t = r.byte()
    msg = {"magic": magic, "room": room, "type": t}
    if t == JOIN_OK:
        msg["permission"] = r.var_bytes().decode()
        msg["version"] = r.var_bytes()
        msg["extra"] = r.var_bytes()
    elif t == JOIN_ERROR:
        msg["code"] = r.byte()
        msg["message"] = r.var_bytes().decode()
    elif t == DOC_UPDATE:
        msg["updates"] = [r.var_bytes() for _ in range(r.uleb())]
        msg["batch"] = r.raw(8)
    elif t == FRAG_HEADER:
        msg["batch"] = r.raw(8)
        msg["count"] = r.uleb()
        msg["total"] = r.uleb()
    elif t == FRAGMENT:
        msg["batch"] = r.raw(8)
        msg["index"] = r.uleb()
        msg["bytes"] = r.var_bytes()
    elif t == ROOM_ERROR:
        msg["code"] = r.byte()
        msg["message"] = r.var_bytes().decode()
    elif t == ACK:
        msg["batch"] = r.raw(8)
        msg["status"] = r.byte()
    if r.pos != len(data):
        raise ValueError(f"{len(data) - r.pos} trailing bytes")
    return msg


def span_ends(vv):
    """{peer: exclusive end counter} of a Loro VersionVector."""
    return {peer: end for peer, (_, end) in vv.to_spans().inner().items()}


async def run(args):
    doc = loro.LoroDoc()
    doc.peer_id = args.peer
    if args.state and os.path.exists(args.state):
        with open(args.state, "rb") as f:
            doc.import_(f.read())
    known_before = span_ends(doc.oplog_vv)
    text = doc.get_text("t")
    result = {"received_changes": 0, "already_known": 0, "acks": []}
    fragments = {}
    async with websockets.connect(args.url, max_size=None) as ws:
        await ws.send(encode(args.room, JOIN_REQUEST, var_bytes(args.token.encode()) + var_bytes(doc.oplog_vv.encode())))
        next_batch = 1
        pending_acks = set()
        joined = False

        def apply_payload(payload):
            meta = loro.LoroDoc.decode_import_blob_meta(payload, True)
            result["received_changes"] += meta.change_num
            starts = span_ends(meta.partial_start_vv)
            for peer, end in span_ends(meta.partial_end_vv).items():
                # Operations of this payload the peer had before joining.
                result["already_known"] += max(0, min(known_before.get(peer, 0), end) - starts.get(peer, 0))
            doc.import_(payload)

        async def send_update(payload):
            nonlocal next_batch
            batch = next_batch.to_bytes(8, "big")
            next_batch += 1
            pending_acks.add(batch)
            await ws.send(encode(args.room, DOC_UPDATE, uleb(1) + var_bytes(payload) + batch))

        loop = asyncio.get_running_loop()
        deadline = loop.time() + args.timeout
        appended = False
        while True:
            if joined and not pending_acks:
                if args.append and not appended:
                    vv = doc.oplog_vv
                    text.insert(text.len_unicode, args.append)
                    doc.commit()
                    await send_update(doc.export(loro.ExportMode.Updates(vv)))
                    appended = True
                    continue
                if args.expect is None or text.to_string() == args.expect:
                    break
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"text is {text.to_string()!r}, expected {args.expect!r}; acks pending: {len(pending_acks)}")
            frame = await asyncio.wait_for(ws.recv(), remaining)
            if isinstance(frame, str):
                if frame == "ping":
                    await ws.send("pong")
                continue
            msg = decode(frame)
            if msg["type"] == JOIN_OK:
                joined = True
                result["permission"] = msg["permission"]
                server_vv = loro.VersionVector.decode(msg["version"])
                if not server_vv.includes_vv(doc.oplog_vv):
                    await send_update(doc.export(loro.ExportMode.Updates(server_vv)))
            elif msg["type"] == JOIN_ERROR:
                result["join_error"] = msg["code"]
                break
            elif msg["type"] == DOC_UPDATE:
                for payload in msg["updates"]:
                    apply_payload(payload)
            elif msg["type"] == FRAG_HEADER:
                fragments[msg["batch"]] = [None] * msg["count"]
            elif msg["type"] == FRAGMENT:
                parts = fragments[msg["batch"]]
                parts[msg["index"]] = msg["bytes"]
                if all(p is not None for p in parts):
                    del fragments[msg["batch"]]
                    apply_payload(b"".join(parts))
            elif msg["type"] == ACK:
                pending_acks.discard(msg["batch"])
                result["acks"].append(msg["status"])
        await ws.send(encode(args.room, LEAVE))
    if args.state:
        with open(args.state, "wb") as f:
            f.write(doc.export(loro.ExportMode.Snapshot()))
    result["text"] = text.to_string()
    print(json.dumps(result))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--room", required=True)
    p.add_argument("--peer", type=int, required=True)
    p.add_argument("--token", default="")
    p.add_argument("--state")
    p.add_argument("--append")
    p.add_argument("--expect")
    p.add_argument("--timeout", type=float, default=20)
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
