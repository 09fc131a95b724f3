#!/usr/bin/python3
"""A D-Bus client that pipelines method calls and never reads a reply.

Usage: pipeline.py ADDRESS DESTINATION PATH INTERFACE MEMBERS COUNT [read]

MEMBERS is one method name, or several separated by commas, called in turn. With "read", a thread
reads (and drops) everything the bus sends meanwhile: a client that pipelines but takes every reply.

Speaks the wire protocol itself over the unix socket (SASL EXTERNAL, Hello, then COUNT calls with
no arguments, written as fast as the bus takes them), so that nothing in it reads what the bus sends
back: what a hostile or wedged client does. Prints "sent N" once all calls are written, then sleeps
until killed.
"""
import os
import socket
import struct
import sys
import threading
import time


def pad(length, align):
    return b"\0" * ((-length) % align)


def method_call(serial, destination, path, interface, member):
    fields = b""
    for code, sig, value in ((1, "o", path), (2, "s", interface), (3, "s", member), (6, "s", destination)):
        fields += pad(16 + len(fields), 8)
        fields += bytes([code, 1]) + sig.encode() + b"\0"
        fields += pad(16 + len(fields), 4)
        data = value.encode()
        fields += struct.pack("<I", len(data)) + data + b"\0"
    header = struct.pack("<cBBBII", b"l", 1, 0, 1, 0, serial) + struct.pack("<I", len(fields)) + fields
    return header + pad(len(header), 8)


def connect(address):
    for part in address.split(";"):
        if not part.startswith("unix:"):
            continue
        keys = dict(item.split("=", 1) for item in part[5:].split(","))
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if "path" in keys:
            sock.connect(keys["path"])
        elif "abstract" in keys:
            sock.connect("\0" + keys["abstract"])
        else:
            continue
        return sock
    raise SystemExit("no unix address in " + address)


def main():
    address, destination, path, interface, members, count = sys.argv[1:7]
    reading = sys.argv[7:8] == ["read"]
    members = members.split(",")
    sock = connect(address)
    sock.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
    answer = b""
    while not answer.endswith(b"\r\n"):
        answer += sock.recv(1)
    if not answer.startswith(b"OK"):
        raise SystemExit("authentication refused: " + answer.decode())
    sock.sendall(b"BEGIN\r\n")
    if reading:
        def drain():
            while sock.recv(1 << 20):
                pass
        threading.Thread(target=drain, daemon=True).start()
    bus = "org.freedesktop.DBus"
    sock.sendall(method_call(1, bus, "/org/freedesktop/DBus", bus, "Hello"))
    batch = []
    for serial in range(2, int(count) + 2):
        batch.append(method_call(serial, destination, path, interface, members[serial % len(members)]))
        if len(batch) == 256:
            sock.sendall(b"".join(batch))
            batch = []
    sock.sendall(b"".join(batch))
    print("sent", count, flush=True)
    while True:
        time.sleep(60)


main()
