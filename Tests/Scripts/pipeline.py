#!/usr/bin/python3
"""A D-Bus client that pipelines method calls and never reads a reply.

Usage: pipeline.py ADDRESS DESTINATION PATH INTERFACE MEMBERS COUNT [read | READ_AFTER | subscribe]

MEMBERS is one method name, or several separated by commas, called in turn. With "read", a thread
reads (and drops) everything the bus sends meanwhile: a client that pipelines but takes every reply.
With READ_AFTER (seconds), once all calls are written it waits that long, then reads what the bus
sends until every call has its answer (at most 120 s between two reads) and prints
"answered R refused E other O NAMES": method returns, LimitsExceeded errors, other errors (by name).
With "subscribe", it first asks for every signal on the bus (AddMatch "type='signal'"), and reads
nothing: what the bus then has for it (replies and every signal) piles up in the bus.

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


def method_call(serial, destination, path, interface, member, argument=None):
    """A call with no arguments, or with one string `argument`."""
    fields = b""
    for code, sig, value in ((1, "o", path), (2, "s", interface), (3, "s", member), (6, "s", destination)):
        fields += pad(16 + len(fields), 8)
        fields += bytes([code, 1]) + sig.encode() + b"\0"
        fields += pad(16 + len(fields), 4)
        data = value.encode()
        fields += struct.pack("<I", len(data)) + data + b"\0"
    body = b""
    if argument is not None:
        fields += pad(16 + len(fields), 8)
        fields += bytes([8, 1]) + b"g\0" + bytes([1]) + b"s\0"
        data = argument.encode()
        body = struct.pack("<I", len(data)) + data + b"\0"
    header = struct.pack("<cBBBII", b"l", 1, 0, 1, len(body), serial) + struct.pack("<I", len(fields)) + fields
    return header + pad(len(header), 8) + body


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


def read_answers(sock, count):
    """Counts the answers to calls 2..count+1 (Hello was 1) as they come."""
    answered, refused, other = 0, 0, {}
    data, offset = b"", 0
    sock.settimeout(120)
    while answered + refused + sum(other.values()) < count:
        while len(data) - offset >= 16:
            kind = data[offset + 1]
            body, fields = struct.unpack_from("<I", data, offset + 4)[0], struct.unpack_from("<I", data, offset + 12)[0]
            start = offset + 16
            end = start + fields
            total = 16 + fields + (-(16 + fields) % 8) + body
            if len(data) - offset < total:
                break
            name, serial, at = None, 0, start
            while at < end:
                at += (-(at - offset)) % 8
                code, length = data[at], data[at + 1]
                sig = chr(data[at + 2])
                at += 3 + length
                if sig in "so":
                    at += (-(at - offset)) % 4
                    size = struct.unpack_from("<I", data, at)[0]
                    value = data[at + 4:at + 4 + size].decode()
                    at += 5 + size
                    if code == 4:
                        name = value
                elif sig == "g":
                    at += 2 + data[at]
                else:
                    at += (-(at - offset)) % 4
                    if code == 5:
                        serial = struct.unpack_from("<I", data, at)[0]
                    at += 4
            offset += total
            if serial < 2 or kind not in (2, 3):
                continue
            if kind == 2:
                answered += 1
            elif name == "org.freedesktop.DBus.Error.LimitsExceeded":
                refused += 1
            else:
                other[name] = other.get(name, 0) + 1
        data, offset = data[offset:], 0
        if answered + refused + sum(other.values()) >= count:
            break
        try:
            more = sock.recv(1 << 20)
        except socket.timeout:
            break
        if not more:
            break
        data += more
    print("answered", answered, "refused", refused, "other", sum(other.values()), other, flush=True)


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
    first = 2
    if sys.argv[7:8] == ["subscribe"]:
        sock.sendall(method_call(2, bus, "/org/freedesktop/DBus", bus, "AddMatch", "type='signal'"))
        first = 3
    batch = []
    for serial in range(first, int(count) + first):
        batch.append(method_call(serial, destination, path, interface, members[serial % len(members)]))
        if len(batch) == 256:
            sock.sendall(b"".join(batch))
            batch = []
    sock.sendall(b"".join(batch))
    print("sent", count, flush=True)
    if sys.argv[7:8] and not reading and sys.argv[7] != "subscribe":
        time.sleep(float(sys.argv[7]))
        read_answers(sock, int(count))
    while True:
        time.sleep(60)


main()
