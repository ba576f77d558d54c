#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A bare WebSocket client (RFC 6455 frames by hand, standard library only) for what a
browser will not send: silence on an open socket, malformed and oversized messages.

    ws_client.py SCENARIO HOST PORT TOKEN

  silent  hello, a down, then nothing on the open socket: prints the down's CLOCK_MONOTONIC
          ns, then waits for the test to close stdin
  bad     connection A plays a down; connection B sends each bad message in turn on a fresh
          connection and prints the close code and reason; then A sends a ping and its up:
          prints A's pong (A was not closed)
  split   a message whose frame reaches the server in two TCP reads, then one sent as two
          WebSocket frames (a text frame and its continuation): prints the pong each ends with;
          then a touch whose move comes as 4 frames 0.3 s apart (0.9 s in all, never 0.6 s
          silent), and its up
  unpaired  16 connections that never send their hello: prints how long each took to be
          closed ("closed SECONDS", or "open SECONDS" after 12 s); then a phone pairs
  http    plain requests: the page's files, paths that try to escape, other methods;
          prints each status and security header; then a WebSocket upgrade on another path
"""
import base64
import os
import socket
import struct
import sys
import time


class Client:
    path = "/ws"

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {self.path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: bendsynth\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError("closed during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"handshake refused: {head[:80]!r}")

    def send(self, payload, opcode=1):
        self.sock.sendall(self.frame(payload, opcode))

    def frame(self, payload, opcode=1, final=True):
        if isinstance(payload, str):
            payload = payload.encode()
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([(0x80 if final else 0) | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    def exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def receive(self):
        """(opcode, payload) of the next frame from the server."""
        b0, b1 = self.exact(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", self.exact(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self.exact(8))[0]
        return b0 & 0x0F, self.exact(n)

    def close_reason(self):
        """The server's close frame: 'CODE reason'."""
        while True:
            opcode, payload = self.receive()
            if opcode == 8:
                code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 0
                return f"{code} {payload[2:].decode(errors='replace')}"


def main():
    scenario, host, port, token = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if scenario == "silent":
        c = Client(host, port)
        c.send("h " + token)
        print("paired", c.receive()[1].decode())
        c.send("d 7 0.5 0.5 1")
        print("down", time.monotonic_ns(), flush=True)
        sys.stdin.read()  # the socket stays open, silent, until the test is done
    elif scenario == "bad":
        a = Client(host, port)
        a.send("h " + token)
        print("paired", a.receive()[1].decode())
        a.send("d 1 0.25 0.5 1")
        bad = {
            "nan": "d 2 nan 0.5 1",
            "range": "d 2 1.5 0.5 1",
            "unknown": "z 1",
            "fields": "d 2 0.5",
            "oversized": "p " + "1" * 2000,
            "binary": b"\x00\x01",
        }
        for name, message in bad.items():
            b = Client(host, port)
            b.send("h " + token)
            b.receive()
            if isinstance(message, bytes):
                b.send(message, opcode=2)
            else:
                b.send(message)
            print("closed", name, b.close_reason(), flush=True)
        w = Client(host, port)
        w.send("h " + "0" * 32)
        print("closed wrongtoken", w.close_reason(), flush=True)
        a.send("p 42")
        opcode, payload = a.receive()
        print("pong", payload.decode())
        a.send("u 1 0.25 0.5 2\np 43")
        print("pong", a.receive()[1].decode())
    elif scenario == "split":
        c = Client(host, port)
        c.send("h " + token)
        print("paired", c.receive()[1].decode())
        frame = c.frame("d 3 0.25 0.75 1\np 1")
        c.sock.sendall(frame[:9])
        time.sleep(0.2)  # not a wait for a result: the server reads the first 9 bytes alone
        c.sock.sendall(frame[9:])
        print("pong", c.receive()[1].decode(), flush=True)
        c.sock.sendall(c.frame("u 3 0.25 ", final=False) + c.frame("0.75 2\np 2", opcode=0))
        print("pong", c.receive()[1].decode(), flush=True)
        c.send("d 4 0.5 0.5 3")
        pieces = ["m 4 ", "0.5 ", "0.25 ", "4"]
        for i, piece in enumerate(pieces):
            if i:
                time.sleep(0.3)  # not a wait for a result: the pieces come 0.3 s apart
            c.sock.sendall(c.frame(piece, opcode=0 if i else 1, final=i == len(pieces) - 1))
        c.send("u 4 0.5 0.25 5\np 3")
        print("pong", c.receive()[1].decode(), flush=True)
    elif scenario == "unpaired":
        start = time.monotonic()
        idle = [Client(host, port) for _ in range(16)]
        for c in idle:
            c.sock.settimeout(max(0.1, 12 - (time.monotonic() - start)))
            state = "closed"
            try:
                while c.sock.recv(4096):
                    pass
            except socket.timeout:
                state = "open"
            except OSError:
                pass
            print(state, f"{time.monotonic() - start:.2f}", flush=True)
        phone = Client(host, port)
        phone.send("h " + token)
        print("paired", phone.receive()[1].decode(), flush=True)
        # Paired, it outlives the hello timeout: pings (as the page's) for 7 s, each answered.
        paired_at = time.monotonic()
        try:
            while time.monotonic() - paired_at < 7:
                phone.send("p 1")
                phone.receive()
                time.sleep(0.5)
        except OSError:
            pass
        print("kept", f"{time.monotonic() - paired_at:.2f}", flush=True)
    elif scenario == "http":
        import http.client
        for method, path in [("GET", "/"), ("GET", "/index.html"), ("GET", "/pad.js"), ("GET", "/pad.css"),
                             ("GET", "/../../../../etc/passwd"), ("GET", "/%2e%2e/%2e%2e/etc/passwd"),
                             ("GET", "/Assets/web/pad.js"), ("GET", "/nothing"), ("POST", "/"),
                             ("HEAD", "/"), ("GET", "/ws")]:
            c = http.client.HTTPConnection(host, port, timeout=5)
            c.putrequest(method, path, skip_accept_encoding=True)
            if method == "POST":
                c.putheader("Content-Length", "3")
            c.endheaders(b"x=1" if method == "POST" else None)
            r = c.getresponse()
            body = r.read()
            print("status", method, path, r.status, r.getheader("Content-Type"), len(body), flush=True)
            for name in ["Cache-Control", "X-Content-Type-Options", "Referrer-Policy", "Content-Security-Policy"]:
                print("header", method, path, name.lower(), r.getheader(name), flush=True)
            c.close()
        try:
            Client.path = "/other"
            Client(host, port)
            print("upgrade /other accepted")
        except Exception as e:
            print("upgrade /other refused")
    print("done", flush=True)


if __name__ == "__main__":
    main()
