#!/usr/bin/env python3
"""A real SMTP server on loopback (aiosmtpd) for the courier's tests: it keeps what it receives.

Usage: smtp_sink.py DIRECTORY MODE[:PORT] [USER PASSWORD]
  PORT  the port to listen on (default: a free one), so a relay can come back where it was
  MODE  plain     SMTP without TLS
        starttls  STARTTLS required before AUTH and MAIL (a throwaway CA in DIRECTORY/ca.pem)
        reject    answers every recipient with 550
With USER and PASSWORD, AUTH (PLAIN/LOGIN) is required. Prints "listening PORT" once ready; each
message received is one JSON line in DIRECTORY/received.jsonl: {"from", "to", "data"}.
"""
import asyncio, json, os, socket, ssl, sys

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from testcerts import make_certificates

directory, mode = sys.argv[1:3]
mode, _, fixed_port = mode.partition(":")
credentials = tuple(sys.argv[3:5]) if len(sys.argv) >= 5 else None
received = os.path.join(directory, "received.jsonl")


class Sink:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if mode == "reject":
            # As real relays do, the refusal names the address.
            return f"550 5.1.1 <{address}>: no such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        with open(received, "a") as file:
            file.write(json.dumps({"from": envelope.mail_from, "to": envelope.rcpt_tos,
                                   "data": envelope.content.decode("utf-8", "replace")}) + "\n")
        return "250 2.0.0 queued"


def authenticate(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and credentials is not None \
        and (auth_data.login.decode(), auth_data.password.decode()) == credentials
    return AuthResult(success=ok, handled=False)


def main():
    port = int(fixed_port or 0)
    if not port:
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        probe.close()
    options = {}
    if mode == "starttls":
        paths = make_certificates(directory, "fake-smtp-test-ca")
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(paths["server.pem"], paths["server-key.pem"])
        options.update(tls_context=context, require_starttls=True)
    if credentials:
        options.update(authenticator=authenticate, auth_required=True,
                       auth_require_tls=(mode == "starttls"))
    controller = Controller(Sink(), hostname="127.0.0.1", port=port, server_hostname="localhost", **options)
    controller.start()
    print(f"listening {port}", flush=True)
    try:
        asyncio.run(asyncio.Event().wait())
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
