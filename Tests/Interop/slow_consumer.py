"""A WebSocket client that joins a presence room and then never reads: the slow consumer of
Quire's server tests. Raw socket, handshake by hand, so nothing reads on its behalf.

usage: slow_consumer.py --port P --room R --seconds S   (prints "joined" once the join is sent)
"""
import argparse
import base64
import os
import socket
import sys
import time


def uleb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def frame(payload):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x82])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--room", required=True)
    p.add_argument("--seconds", type=float, default=30)
    args = p.parse_args()
    s = socket.create_connection(("127.0.0.1", args.port))
    # A small receive buffer so the server's writes back up quickly.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    response = b""
    while b"\r\n\r\n" not in response:
        response += s.recv(1)
    if b" 101 " not in response.split(b"\r\n")[0]:
        sys.exit(f"no upgrade: {response!r}")
    room = args.room.encode()
    s.sendall(frame(b"%EPH" + uleb(len(room)) + room + b"\x00" + uleb(0) + uleb(0)))
    print("joined", flush=True)
    time.sleep(args.seconds)


if __name__ == "__main__":
    main()
