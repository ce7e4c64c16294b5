#!/usr/bin/env python3
"""A real WebAuthn relying party for autofill's passkey tests.

Verification is done by two WebAuthn server libraries that autofill's authors did not write:
py_webauthn (`webauthn` on PyPI) always, and python-fido2's Fido2Server as a second opinion where it
applies (it insists on user presence, so not for conditional registration). State between the
options and the verification (challenge, stored credential, signature counter) lives in a JSON file.

Usage:
  relying_party.py registration-options STATE --rp-id ID --user NAME [--uv PREF] [--exclude-from STATE] [--algs -257,-8]
  relying_party.py registration-verify STATE --origin ORIGIN [--rp-id ID] [--conditional] < credential.json
  relying_party.py authentication-options STATE [--rp-id ID] [--allow-from STATE] [--uv PREF]
  relying_party.py authentication-verify STATE --origin ORIGIN [--rp-id ID] < credential.json
  relying_party.py keepassxc-passkey STATE --rp-id ID --user NAME [--alg es256|eddsa|rs256] [--legacy-id]

keepassxc-passkey stands in for a registration done by KeePassXC's browser integration: it makes a
P-256 key (or, with --alg, an Ed25519 or RSA-2048 key, the other two KeePassXC registers), records the credential as registered, and prints the KPEX_PASSKEY_* attributes KeePassXC
would store (JSON), for a database the tests import.

On success the verify commands print a JSON summary (flags, counter) and exit 0; on a rejection
they print the library's reason on stderr and exit 1.
"""

import argparse
import json
import os
import sys

import webauthn
from webauthn.helpers import bytes_to_base64url, base64url_to_bytes
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)
from webauthn.helpers.cose import COSEAlgorithmIdentifier
from fido2.server import Fido2Server
from fido2.webauthn import AttestedCredentialData, PublicKeyCredentialRpEntity, UserVerificationRequirement as Fido2UV


def load(path):
    if os.path.exists(path):
        with open(path) as handle:
            return json.load(handle)
    return {}


def save(path, state):
    with open(path, "w") as handle:
        json.dump(state, handle, indent=1)


def flags(auth_data_bytes):
    flag_byte = auth_data_bytes[32]
    return {
        "userPresent": bool(flag_byte & 0x01),
        "userVerified": bool(flag_byte & 0x04),
        "backupEligible": bool(flag_byte & 0x08),
        "backedUp": bool(flag_byte & 0x10),
        "signCount": int.from_bytes(auth_data_bytes[33:37], "big"),
    }


def registration_options(args):
    state = load(args.state)
    exclude = []
    if args.exclude_from:
        other = load(args.exclude_from)
        exclude = [PublicKeyCredentialDescriptor(id=base64url_to_bytes(other["credentialId"]))]
    algs = [COSEAlgorithmIdentifier(int(a)) for a in args.algs.split(",")] if args.algs else None
    user_id = os.urandom(16)
    options = webauthn.generate_registration_options(
        rp_id=args.rp_id,
        rp_name="Test RP",
        user_name=args.user,
        user_id=user_id,
        user_display_name=args.user.title(),
        exclude_credentials=exclude,
        supported_pub_key_algs=algs,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED, user_verification=UserVerificationRequirement(args.uv)
        ),
    )
    state.update(
        {
            "challenge": bytes_to_base64url(options.challenge),
            "rpId": args.rp_id,
            "userVerification": args.uv,
            "userHandle": bytes_to_base64url(user_id),
        }
    )
    save(args.state, state)
    print(webauthn.options_to_json(options))


def registration_verify(args):
    state = load(args.state)
    body = sys.stdin.read()
    rp_id = args.rp_id or state["rpId"]
    try:
        verified = webauthn.verify_registration_response(
            credential=body,
            expected_challenge=base64url_to_bytes(state["challenge"]),
            expected_rp_id=rp_id,
            expected_origin=args.origin,
            require_user_presence=not args.conditional,
            require_user_verification=state["userVerification"] == "required",
        )
        if not args.conditional:
            server = Fido2Server(PublicKeyCredentialRpEntity(id=rp_id, name="Test RP"), verify_origin=lambda o: o == args.origin)
            fido2_state = {"challenge": state["challenge"], "user_verification": Fido2UV(state["userVerification"])}
            auth_data = server.register_complete(fido2_state, json.loads(body))
            state["fido2Credential"] = bytes_to_base64url(bytes(auth_data.credential_data))
    except Exception as error:  # the libraries raise various types; the message is what matters
        print(f"rejected: {error}", file=sys.stderr)
        sys.exit(1)
    state.update(
        {
            "credentialId": bytes_to_base64url(verified.credential_id),
            "publicKey": bytes_to_base64url(verified.credential_public_key),
            "signCount": verified.sign_count,
        }
    )
    save(args.state, state)
    summary = flags(parse_auth_data(body))
    summary["credentialId"] = state["credentialId"]
    summary["format"] = verified.fmt.value if hasattr(verified.fmt, "value") else str(verified.fmt)
    summary["credentialDeviceType"] = str(getattr(verified.credential_device_type, "value", verified.credential_device_type))
    summary["credentialBackedUp"] = verified.credential_backed_up
    print(json.dumps(summary))


def parse_auth_data(body):
    response = json.loads(body)["response"]
    return base64url_to_bytes(response["authenticatorData"])


def authentication_options(args):
    state = load(args.state)
    allow = []
    if args.allow_from:
        for path in args.allow_from:
            other = load(path)
            allow.append(PublicKeyCredentialDescriptor(id=base64url_to_bytes(other["credentialId"])))
    rp_id = args.rp_id or state["rpId"]
    options = webauthn.generate_authentication_options(
        rp_id=rp_id, allow_credentials=allow, user_verification=UserVerificationRequirement(args.uv)
    )
    state.update({"challenge": bytes_to_base64url(options.challenge), "authUserVerification": args.uv, "authRpId": rp_id})
    save(args.state, state)
    print(webauthn.options_to_json(options))


def authentication_verify(args):
    state = load(args.state)
    body = sys.stdin.read()
    rp_id = args.rp_id or state.get("authRpId") or state["rpId"]
    try:
        credential = json.loads(body)
        if credential["id"] != state["credentialId"]:
            raise ValueError(f"unknown credential {credential['id']}")
        user_handle = credential["response"].get("userHandle")
        if user_handle != state["userHandle"]:
            raise ValueError(f"user handle {user_handle} is not the registered {state['userHandle']}")
        verified = webauthn.verify_authentication_response(
            credential=body,
            expected_challenge=base64url_to_bytes(state["challenge"]),
            expected_rp_id=rp_id,
            expected_origin=args.origin,
            credential_public_key=base64url_to_bytes(state["publicKey"]),
            credential_current_sign_count=state["signCount"],
            require_user_verification=state["authUserVerification"] == "required",
        )
        if "fido2Credential" in state:
            server = Fido2Server(PublicKeyCredentialRpEntity(id=rp_id, name="Test RP"), verify_origin=lambda o: o == args.origin)
            fido2_state = {"challenge": state["challenge"], "user_verification": Fido2UV(state["authUserVerification"])}
            stored = AttestedCredentialData(base64url_to_bytes(state["fido2Credential"]))
            server.authenticate_complete(fido2_state, [stored], credential)
    except Exception as error:
        print(f"rejected: {error}", file=sys.stderr)
        sys.exit(1)
    state["signCount"] = verified.new_sign_count
    save(args.state, state)
    summary = flags(parse_auth_data(body))
    print(json.dumps(summary))


def keepassxc_passkey(args):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
    from fido2.cose import ES256 as CoseES256, EdDSA as CoseEdDSA, RS256 as CoseRS256
    from fido2 import cbor

    if args.alg == "eddsa":
        key, cose = ed25519.Ed25519PrivateKey.generate(), CoseEdDSA
    elif args.alg == "rs256":
        key, cose = rsa.generate_private_key(public_exponent=65537, key_size=2048), CoseRS256
    else:
        key, cose = ec.generate_private_key(ec.SECP256R1()), CoseES256
    credential_id = os.urandom(32)
    user_handle = os.urandom(16)
    public_key = cbor.encode(dict(cose.from_cryptography_key(key.public_key())))
    save(args.state, {
        "rpId": args.rp_id,
        "credentialId": bytes_to_base64url(credential_id),
        "publicKey": bytes_to_base64url(public_key),
        "signCount": 0,
        "userHandle": bytes_to_base64url(user_handle),
    })
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    # KeePassXC 2.7.7 (and Strongbox) kept the credential id under KPEX_PASSKEY_GENERATED_USER_ID.
    id_key = "KPEX_PASSKEY_GENERATED_USER_ID" if args.legacy_id else "KPEX_PASSKEY_CREDENTIAL_ID"
    print(json.dumps({
        id_key: bytes_to_base64url(credential_id),
        "KPEX_PASSKEY_PRIVATE_KEY_PEM": pem,
        "KPEX_PASSKEY_RELYING_PARTY": args.rp_id,
        "KPEX_PASSKEY_USERNAME": args.user,
        "KPEX_PASSKEY_USER_HANDLE": bytes_to_base64url(user_handle),
    }))


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("registration-options")
    p.add_argument("state")
    p.add_argument("--rp-id", required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--uv", default="preferred")
    p.add_argument("--exclude-from")
    p.add_argument("--algs")
    p.set_defaults(run=registration_options)
    p = commands.add_parser("registration-verify")
    p.add_argument("state")
    p.add_argument("--origin", required=True)
    p.add_argument("--rp-id")
    p.add_argument("--conditional", action="store_true")
    p.set_defaults(run=registration_verify)
    p = commands.add_parser("keepassxc-passkey")
    p.add_argument("state")
    p.add_argument("--rp-id", required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--alg", default="es256", choices=["es256", "eddsa", "rs256"])
    p.add_argument("--legacy-id", action="store_true")
    p.set_defaults(run=keepassxc_passkey)
    p = commands.add_parser("authentication-options")
    p.add_argument("state")
    p.add_argument("--rp-id")
    p.add_argument("--allow-from", action="append")
    p.add_argument("--uv", default="preferred")
    p.set_defaults(run=authentication_options)
    p = commands.add_parser("authentication-verify")
    p.add_argument("state")
    p.add_argument("--origin", required=True)
    p.add_argument("--rp-id")
    p.set_defaults(run=authentication_verify)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
