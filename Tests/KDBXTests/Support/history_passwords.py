"""Prints the passwords in the history of the current entry titled TITLE, oldest first, one a line,
from a KeePass XML dump (protected values in clear).

    history_passwords.py DUMP TITLE"""
import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
for group in root.iter("Group"):
    for entry in group.findall("Entry"):
        if any(s.findtext("Key") == "Title" and s.findtext("Value") == sys.argv[2] for s in entry.findall("String")):
            for item in entry.findall("History/Entry"):
                print(next((s.findtext("Value") or "" for s in item.findall("String") if s.findtext("Key") == "Password"), ""))
