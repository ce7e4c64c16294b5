#!/usr/bin/env python3
"""Checks what AutofillWebAuthn built with Yubico's python-fido2, a relying-party library no one here wrote.

Reads one JSON object on stdin (bytes as base64url):
  rp_id, origin,
  registration: {credential_id, attestation_object, client_data_json, challenge},
  assertions: [{authenticator_data, signature, client_data_json, challenge}],
  cbor: [canonical CBOR items as hex]
Writes one JSON object on stdout with what fido2 read and whether each check passed. Exits 0 when it
could run the checks (the Swift test judges the results), 2 on a usage problem.
"""
import hashlib
import json
import sys

from fido2 import cbor
from fido2.cose import ES256, CoseKey
from fido2.server import Fido2Server
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import (
    AttestationObject,
    AuthenticatorData,
    PublicKeyCredentialRpEntity,
    PublicKeyCredentialUserEntity,
    UserVerificationRequirement,
)


def outcome(check):
    """Runs check(); 'ok' or the exception's class and message."""
    try:
        check()
        return "ok"
    except Exception as error:  # noqa: BLE001 - the Swift side wants any refusal's text
        return f"{type(error).__name__}: {error}"


def main():
    request = json.load(sys.stdin)
    rp_id = request["rp_id"]
    result = {}

    # The attestation object and its authenticator data, read by fido2's own parsers.
    registration = request["registration"]
    attestation = AttestationObject(websafe_decode(registration["attestation_object"]))
    auth_data = attestation.auth_data
    credential = auth_data.credential_data
    result["fmt"] = attestation.fmt
    result["att_stmt"] = dict(attestation.att_stmt)
    result["rp_id_hash_matches"] = auth_data.rp_id_hash == hashlib.sha256(rp_id.encode()).digest()
    result["registration_flags"] = int(auth_data.flags)
    result["registration_counter"] = auth_data.counter
    result["aaguid"] = bytes(credential.aaguid).hex()
    result["credential_id"] = websafe_encode(credential.credential_id)
    public_key = credential.public_key
    result["public_key_class"] = type(public_key).__name__
    result["public_key_alg"] = public_key.ALGORITHM
    result["public_key_cbor"] = cbor.encode(dict(public_key)).hex()

    # Each assertion: parsed by fido2, its signature verified by the COSE key's verify().
    result["assertions"] = []
    for assertion in request["assertions"]:
        data_bytes = websafe_decode(assertion["authenticator_data"])
        data = AuthenticatorData(data_bytes)
        signature = websafe_decode(assertion["signature"])
        client_data_hash = hashlib.sha256(websafe_decode(assertion["client_data_json"])).digest()
        tampered = bytearray(data_bytes)
        tampered[32] ^= 0x04  # flip UV after signing
        result["assertions"].append(
            {
                "flags": int(data.flags),
                "counter": data.counter,
                "rp_id_hash_matches": data.rp_id_hash == hashlib.sha256(rp_id.encode()).digest(),
                "verify": outcome(lambda: public_key.verify(data_bytes + client_data_hash, signature)),
                "verify_tampered": outcome(lambda: public_key.verify(bytes(tampered) + client_data_hash, signature)),
            }
        )

    # The whole ceremony through fido2's relying-party server: register_complete, authenticate_complete.
    server = Fido2Server(PublicKeyCredentialRpEntity(id=rp_id, name="Example"), verify_origin=lambda o: o == request["origin"])
    user = PublicKeyCredentialUserEntity(id=b"user-handle", name="alice", display_name="Alice")
    _, state = server.register_begin(
        user, challenge=websafe_decode(registration["challenge"]), user_verification=UserVerificationRequirement.DISCOURAGED
    )
    registered = {}

    def register():
        registered["data"] = server.register_complete(
            state,
            {
                "id": registration["credential_id"],
                "rawId": registration["credential_id"],
                "type": "public-key",
                "response": {
                    "clientDataJSON": registration["client_data_json"],
                    "attestationObject": registration["attestation_object"],
                },
                "clientExtensionResults": {},
            },
        )

    result["server_register"] = outcome(register)
    result["server_authenticate"] = []
    for assertion in request["assertions"]:
        def authenticate(assertion=assertion):
            _, auth_state = server.authenticate_begin(
                [registered["data"].credential_data],
                challenge=websafe_decode(assertion["challenge"]),
                user_verification=UserVerificationRequirement.DISCOURAGED,
            )
            server.authenticate_complete(
                auth_state,
                [registered["data"].credential_data],
                {
                    "id": registration["credential_id"],
                    "rawId": registration["credential_id"],
                    "type": "public-key",
                    "response": {
                        "clientDataJSON": assertion["client_data_json"],
                        "authenticatorData": assertion["authenticator_data"],
                        "signature": assertion["signature"],
                        "userHandle": websafe_encode(b"user-handle"),
                    },
                    "clientExtensionResults": {},
                },
            )

        result["server_authenticate"].append(outcome(authenticate) if "data" in registered else "not registered")

    # Canonical CBOR: fido2's encoder (CTAP2 canonical) must give back exactly our bytes.
    result["cbor"] = []
    for item in request.get("cbor", []):
        ours = bytes.fromhex(item)
        decoded = cbor.decode(ours)
        result["cbor"].append({"reencoded": cbor.encode(decoded).hex()})

    assert isinstance(public_key, (ES256, CoseKey))  # noqa: S101
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) != 1:
        print("usage: fido2_check.py < request.json", file=sys.stderr)
        sys.exit(2)
    main()
