"""Load test of the sync server, with pycrdt-websocket (y-websocket's Python counterpart) as the
baseline run in the same session. Loopback only, bounded in time; not part of `make test`.

    make load-test                      # QUIRE_LOAD_SECONDS (default 30) per server
    python Tests/Load/load_test.py --quire PATH/TO/quire [--seconds S] [--clients 100] [--rooms 10]

Both runs use the same harness: N clients in R rooms, each typing an 8-character token (unique,
so receivers can recognise it in any encoding) every `--interval` seconds. Quire's server runs
with its default codec: senders make real Loro binary updates, as Loro clients send them (the
server validates them by import).
pycrdt's senders make real Yjs updates. Reported: updates/s sent and delivered, latency from send
to each other member's receipt (p50, p99), and the server process's peak resident memory.
"""
import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time

import websockets

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Interop"))
from loro_sync_client import ACK, DOC_UPDATE, JOIN_OK, JOIN_REQUEST, decode, encode, uleb, var_bytes  # noqa: E402


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class Stats:
    def __init__(self, members_per_room):
        self.pending = {}  # token -> (send time, receipts expected)
        self.latencies = []
        self.sent = 0
        self.delivered = 0
        self.acks = 0
        self.members = members_per_room

    def send(self, token):
        self.pending[token] = [time.perf_counter(), self.members - 1]
        self.sent += 1

    def receive(self, payload):
        now = time.perf_counter()
        # A payload may carry several tokens (a server may merge updates): count each.
        for token in list(self.pending):
            if token in payload:
                entry = self.pending[token]
                self.latencies.append(now - entry[0])
                self.delivered += 1
                entry[1] -= 1
                if entry[1] == 0:
                    del self.pending[token]


def token(client, seq):
    return f"~{client:03d}{seq:04d}"[:8].encode()


async def quire_client(url, room, client, stats, stop, interval):
    import loro

    doc = loro.LoroDoc()
    doc.peer_id = client + 1
    text = doc.get_text("t")
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(encode(room, JOIN_REQUEST, var_bytes(b"") + var_bytes(b"")))
        while True:
            msg = decode(await ws.recv())
            if msg["type"] == JOIN_OK:
                break

        async def reader():
            async for frame in ws:
                if isinstance(frame, str):
                    continue
                msg = decode(frame)
                if msg["type"] == DOC_UPDATE:
                    for payload in msg["updates"]:
                        stats.receive(payload)
                elif msg["type"] == ACK:
                    stats.acks += 1

        task = asyncio.create_task(reader())
        seq = 0
        while not stop.is_set():
            vv = doc.oplog_vv
            t = token(client, seq)
            text.insert(0, t.decode())
            doc.commit()
            payload = doc.export(loro.ExportMode.Updates(vv))
            stats.send(t)
            await ws.send(encode(room, DOC_UPDATE, uleb(1) + var_bytes(payload) + seq.to_bytes(8, "big")))
            seq += 1
            await asyncio.sleep(interval)
        await asyncio.sleep(1)
        task.cancel()


async def pycrdt_client(url, room, client, stats, stop, interval):
    import pycrdt

    doc = pycrdt.Doc()
    text = doc.get("t", type=pycrdt.Text)
    async with websockets.connect(url + room, max_size=None) as ws:
        await ws.send(pycrdt.create_sync_message(doc))

        async def reader():
            async for frame in ws:
                if isinstance(frame, str):
                    continue
                if frame[0] == pycrdt.YMessageType.SYNC and frame[1] == pycrdt.YSyncMessageType.SYNC_UPDATE:
                    stats.receive(bytes(frame))
                elif frame[0] == pycrdt.YMessageType.SYNC and frame[1] == pycrdt.YSyncMessageType.SYNC_STEP1:
                    reply = pycrdt.handle_sync_message(frame[1:], doc)
                    if reply:
                        await ws.send(reply)

        task = asyncio.create_task(reader())
        seq = 0
        while not stop.is_set():
            state = doc.get_state()
            t = token(client, seq)
            text.insert(0, t.decode())
            update = doc.get_update(state)
            stats.send(t)
            await ws.send(pycrdt.create_update_message(update))
            seq += 1
            await asyncio.sleep(interval)
        await asyncio.sleep(1)
        task.cancel()


async def drive(make_client, url, pid, args):
    stats = Stats(args.clients // args.rooms)
    stop = asyncio.Event()
    tasks = []
    # Connections are staggered: pycrdt-websocket starts a room twice when its first clients
    # arrive together, and drops one of them.
    for c in range(args.clients):
        tasks.append(asyncio.create_task(make_client(url, f"room{c % args.rooms}", c, stats, stop, args.interval)))
        await asyncio.sleep(0.02)
    await asyncio.sleep(1)  # everyone joined
    stats.sent = stats.delivered = 0
    stats.latencies.clear()
    start = time.perf_counter()
    peak = rss(pid)
    while time.perf_counter() - start < args.seconds:
        await asyncio.sleep(0.5)
        peak = max(peak, rss(pid))
    elapsed = time.perf_counter() - start
    sent, delivered = stats.sent, stats.delivered
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    lat = sorted(stats.latencies)

    def pct(p):
        return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 2) if lat else None

    return {"updates_per_s": round(sent / elapsed, 1), "deliveries_per_s": round(delivered / elapsed, 1),
            "expected_deliveries_per_s": round(sent * (stats.members - 1) / elapsed, 1),
            "p50_ms": pct(0.50), "p99_ms": pct(0.99), "peak_rss_mib": round(peak / 2**20, 1)}


def wait_ready(process):
    line = process.stdout.readline().decode()
    if "ws://" not in line:
        raise RuntimeError(f"server not ready: {line!r}")
    return line


def serve_pycrdt(port):
    """Runs pycrdt-websocket's server on `port` (a subprocess of the load test)."""
    from pycrdt.websocket import WebsocketServer

    class Channel:
        def __init__(self, ws):
            self.ws = ws
            self._path = ws.request.path

        @property
        def path(self):
            return self._path

        def __aiter__(self):
            return self

        async def __anext__(self):
            try:
                return await self.recv()
            except websockets.ConnectionClosed:
                raise StopAsyncIteration()

        async def send(self, message):
            await self.ws.send(message)

        async def recv(self):
            return bytes(await self.ws.recv())

    async def main():
        async with WebsocketServer() as server:
            async def handler(ws):
                await server.serve(Channel(ws))
            async with websockets.serve(handler, "127.0.0.1", port, max_size=None):
                print(f"pycrdt-websocket listening on ws://127.0.0.1:{port}/", flush=True)
                await asyncio.Future()

    asyncio.run(main())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quire")
    p.add_argument("--seconds", type=float, default=float(os.environ.get("QUIRE_LOAD_SECONDS", 30)))
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--rooms", type=int, default=10)
    p.add_argument("--interval", type=float, default=0.2)
    p.add_argument("--serve-pycrdt", type=int)
    args = p.parse_args()
    if args.serve_pycrdt:
        return serve_pycrdt(args.serve_pycrdt)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        quire = subprocess.Popen([args.quire, "serve", "--port", "0", "--database", f"sqlite:{tmp}/load.sqlite",
                                  "--rate", "100000", "--log-level", "error"], stdout=subprocess.PIPE)
        try:
            line = wait_ready(quire)
            url = line.split("listening on ")[1].split(" ")[0]
            results["quire serve (SQLite, Loro binary updates)"] = asyncio.run(drive(quire_client, url, quire.pid, args))
        finally:
            quire.terminate()
            quire.wait(30)
    port = 18000 + os.getpid() % 1000
    py = subprocess.Popen([sys.executable, __file__, "--serve-pycrdt", str(port)], stdout=subprocess.PIPE)
    try:
        wait_ready(py)
        results["pycrdt-websocket (in memory)"] = asyncio.run(drive(pycrdt_client, f"ws://127.0.0.1:{port}/", py.pid, args))
    finally:
        py.terminate()
        py.wait(30)
    print(json.dumps({"clients": args.clients, "rooms": args.rooms, "seconds": args.seconds, "interval_s": args.interval, "results": results}, indent=2))


if __name__ == "__main__":
    main()
