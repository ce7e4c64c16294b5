"""Compares two KeePass XML dumps (keepassxc-cli export, or pykeepass's decrypted tree) of one
database before and after a save, minus the entries a save may change.

    compare_exports.py BEFORE AFTER TITLE...

The current entries titled TITLE (with their history) are left out of both; Meta's HeaderHash
(new at every KDBX 3.1 save) too, and the value of Meta's CustomData item _LAST_MODIFIED, which
keepassxc-cli sets when it opens an Argon2 database (with KPXC_DECRYPTION_TIME_PREFERENCE); items
of CustomData are compared in key order (KeePassXC exports them in hash order). Prints the first difference and exits 1 if the rest differs."""
import sys
import xml.etree.ElementTree as ET


def normalized(path, titles):
    tree = ET.parse(path)
    root = tree.getroot()
    meta = root.find("Meta")
    if meta is not None:
        for name in ("HeaderHash",):
            for element in meta.findall(name):
                meta.remove(element)
    for custom in root.iter("CustomData"):
        items = sorted(custom.findall("Item"), key=lambda item: item.findtext("Key") or "")
        for item in custom.findall("Item"):
            custom.remove(item)
        for item in items:
            if custom is root.find("Meta/CustomData") and item.findtext("Key") == "_LAST_MODIFIED":
                item.find("Value").text = "(set by keepassxc-cli at every open)"
            custom.append(item)
    for group in root.iter("Group"):
        for entry in group.findall("Entry"):
            title = [s.findtext("Value") for s in entry.findall("String") if s.findtext("Key") == "Title"]
            if title and title[0] in titles:
                group.remove(entry)
    for element in root.iter():
        if element.text is not None and not element.text.strip():
            element.text = None
        if element.tail is not None and not element.tail.strip():
            element.tail = None
        # Attribute order and Protected's spelling carry no meaning.
        if element.get("Protected") is not None:
            element.set("Protected", element.get("Protected").capitalize())
    return ET.canonicalize(ET.tostring(root, encoding="unicode")).replace("><", ">\n<").splitlines()


before = normalized(sys.argv[1], set(sys.argv[3:]))
after = normalized(sys.argv[2], set(sys.argv[3:]))
if before != after:
    for index, (a, b) in enumerate(zip(before, after)):
        if a != b:
            print(f"line {index}: before {a[:300]!r}\n        after  {b[:300]!r}")
            break
    else:
        print(f"lengths differ: {len(before)} and {len(after)} lines")
    sys.exit(1)
print(f"same ({len(before)} lines)")
