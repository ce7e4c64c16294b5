#!/usr/bin/env python3
"""Writes a KDBX 3.1 database (AES-256, AES-KDF with one round, password on stdin) whose gzip-compressed
XML inflates to SIZE bytes: a compression bomb of a few megabytes, for the reader's cap.

Usage: make_gzip_bomb.py OUTPUT SIZE < password
No tool writes such a file, so it is made here with pycryptodomex (a pykeepass dependency)."""

import hashlib
import os
import struct
import sys
import zlib

from Cryptodome.Cipher import AES


def field(ident, data):
    return struct.pack("<BH", ident, len(data)) + data


def main():
    output, size = sys.argv[1], int(sys.argv[2])
    password = sys.stdin.readline().rstrip("\n").encode()
    master_seed, transform_seed, iv, start = os.urandom(32), os.urandom(32), os.urandom(16), os.urandom(32)
    header = struct.pack("<IIHH", 0x9AA2D903, 0xB54BFB67, 1, 3)
    header += field(2, bytes.fromhex("31c1f2e6bf714350be5805216afc5aff")) + field(3, struct.pack("<I", 1))
    header += field(4, master_seed) + field(5, transform_seed) + field(6, struct.pack("<Q", 1)) + field(7, iv)
    header += field(8, os.urandom(32)) + field(9, start) + field(10, struct.pack("<I", 2)) + field(0, b"\r\n\r\n")
    transformed = AES.new(transform_seed, AES.MODE_ECB).encrypt(hashlib.sha256(hashlib.sha256(password).digest()).digest())
    key = hashlib.sha256(master_seed + hashlib.sha256(transformed).digest()).digest()

    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    parts = [compressor.compress(b'<?xml version="1.0"?><KeePassFile><Meta><Binaries><Binary ID="0">')]
    chunk = b"A" * (1 << 24)
    for _ in range(size // len(chunk)):
        parts.append(compressor.compress(chunk))
    parts.append(compressor.compress(b"</Binary></Binaries></Meta><Root/></KeePassFile>"))
    parts.append(compressor.flush())
    gz = b"".join(parts)

    blocks, index = [], 0
    for offset in range(0, len(gz), 1 << 20):
        data = gz[offset:offset + (1 << 20)]
        blocks.append(struct.pack("<I", index) + hashlib.sha256(data).digest() + struct.pack("<I", len(data)) + data)
        index += 1
    blocks.append(struct.pack("<I", index) + bytes(32) + struct.pack("<I", 0))
    plain = start + b"".join(blocks)
    pad = 16 - len(plain) % 16
    plain += bytes([pad]) * pad
    with open(output, "wb") as handle:
        handle.write(header + AES.new(key, AES.MODE_CBC, iv).encrypt(plain))


main()
