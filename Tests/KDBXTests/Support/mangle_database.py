"""Saves a KeePass database with pykeepass after giving its XML what no KeePass writes but a
hostile or broken program might: a group and an entry nested inside an entry, an element nested
200 deep in Meta, a 4 MB value, text with markup characters and carriage returns, a history outside
any entry; and Meta's HistoryMaxItems set to 1.

    mangle_database.py PATH < password"""
import sys
from lxml import etree
from pykeepass import PyKeePass

db = PyKeePass(sys.argv[1], password=sys.stdin.readline().rstrip("\n"))
E = etree.SubElement
mail = db.find_entries(title="Mail", first=True)
nested = E(mail._element, "Group")
E(nested, "UUID").text = "bmVzdGVkbmVzdGVkbmVzdA=="
inner = E(nested, "Entry")
string = E(inner, "String")
E(string, "Key").text = "Title"
E(string, "Value").text = "inside an entry"
E(nested, "Name").text = "closes after the entry"
meta = db.tree.find("Meta")
deep = meta
for _ in range(200):
    deep = E(deep, "Deep")
deep.text = "bottom"
E(db.tree.find("Root"), "History")
db.find_entries(title="Bank", first=True).notes = "huge " + "\u00e9\r\n<&>\"'" * 500_000
E(meta, "HistoryMaxItems").text = "1" if meta.find("HistoryMaxItems") is None else None
meta.find("HistoryMaxItems").text = "1"
db.save()
