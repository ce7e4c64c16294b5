"""Prints a database's XML as pykeepass reads it (protected values in clear).

    pykeepass_dump.py DATABASE [KEYFILE] < password"""
import sys
from lxml import etree
from pykeepass import PyKeePass

password = sys.stdin.readline().rstrip("\n") or None
db = PyKeePass(sys.argv[1], password=password, keyfile=sys.argv[2] if len(sys.argv) > 2 else None)
print(etree.tostring(db.tree, encoding="unicode"))
