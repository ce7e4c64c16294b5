"""Fills a KeePass database with pykeepass: two entries in the root group (one with a history item
and an attachment) and one in a subgroup.

    make_database.py PATH create4 < password      a new KDBX 4 database (Argon2d, light parameters)
    make_database.py PATH fill31 < password       fills a KDBX 3.1 database keepassxc-cli made,
                                                  saved as pykeepass saves it (without HeaderHash)"""
import sys
from pykeepass import PyKeePass, create_database

path, mode = sys.argv[1], sys.argv[2]
password = sys.stdin.readline().rstrip("\n")
if mode == "create4":
    db = create_database(path, password=password)
    kdf = db.kdbx.header.value.dynamic_header.kdf_parameters.data.dict
    kdf["M"].value = 1024 * 1024
    kdf["I"].value = 2
else:
    db = PyKeePass(path, password=password)
db.add_entry(db.root_group, "Mail", "alice", "old-mail", url="https://mail.example")
bank = db.add_entry(db.root_group, "Bank", "bob", "bank-1", url="https://bank.example")
bank.save_history()
bank.password = "bank-2"
bank.add_attachment(db.add_binary(bytes(range(256)) * 400), "statement.pdf")
work = db.add_group(db.root_group, "Work")
db.add_entry(work, "VPN", "carol", "vpn-pw", url="https://vpn.example")
if mode == "fill31":
    meta = db.tree.find("Meta")
    for stale in meta.findall("HeaderHash"):
        meta.remove(stale)
db.save()
print(db.version)
