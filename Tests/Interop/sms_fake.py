#!/usr/bin/env python3
"""A fake SMS provider on loopback for the courier's tests, following two documented contracts.

Twilio's Messages API (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource):
  POST /2010-04-01/Accounts/{AccountSid}/Messages.json, HTTP Basic (AccountSid:AuthToken),
  application/x-www-form-urlencoded To, From, Body. 201 with the Message resource (sid SM…,
  status "queued"); errors as {"code", "message", "more_info", "status"}: 20003 (401) for bad
  credentials, 21211 (400) for a To that is no E.164 number, 21604 (400) without a Body.
The gateway's webhook (docs/journeys.md, "SMS through a webhook"):
  POST /hook, JSON {"id", "to", "from", "text"}, X-Gateway-Timestamp (Unix seconds) and
  X-Gateway-Signature "v1=" + hex HMAC-SHA256(key, timestamp + "." + body); 401 when the
  signature does not verify or the timestamp is more than 300 s away; 200 otherwise.

Usage: sms_fake.py DIRECTORY ACCOUNT_SID AUTH_TOKEN [MODE] [DELAY_MS]
  MODE  ok (default) | unavailable: 503 to every send | throttled: 429 (code 20429) to every
        send | flaky: 503 to every other send, starting with the first
Prints "listening PORT" once ready; each message accepted is one JSON line in
DIRECTORY/received.jsonl: {"api": "twilio"|"webhook", "id", "to", "from", "text"}.
"""
import base64, hashlib, hmac, json, os, re, socket, sys, threading, time, uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

directory, account_sid, auth_token = sys.argv[1:4]
mode = sys.argv[4] if len(sys.argv) > 4 else "ok"
delay = int(sys.argv[5]) / 1000 if len(sys.argv) > 5 else 0
received = os.path.join(directory, "received.jsonl")
lock = threading.Lock()
sends = [0]
E164 = re.compile(r"^\+[1-9][0-9]{6,14}$")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, document):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def twilio_error(self, status, code, message):
        self.answer(status, {"code": code, "message": message, "status": status,
                             "more_info": f"https://www.twilio.com/docs/errors/{code}"})

    def injected_fault(self):
        """The mode's fault for this send, answered; False when the send goes through."""
        with lock:
            sends[0] += 1
            count = sends[0]
        if mode == "unavailable" or (mode == "flaky" and count % 2 == 1):
            self.twilio_error(503, 20500, "Service unavailable")
            return True
        if mode == "throttled":
            self.twilio_error(429, 20429, "Too Many Requests")
            return True
        return False

    def keep(self, record):
        with lock, open(received, "a") as file:
            file.write(json.dumps(record) + "\n")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        if delay:
            time.sleep(delay)
        if self.path == f"/2010-04-01/Accounts/{account_sid}/Messages.json":
            self.twilio(raw)
        elif self.path == "/hook":
            self.webhook(raw)
        else:
            self.twilio_error(404, 20404, "The requested resource was not found")

    def twilio(self, raw):
        expected = "Basic " + base64.b64encode(f"{account_sid}:{auth_token}".encode()).decode()
        if not hmac.compare_digest(self.headers.get("Authorization", ""), expected):
            return self.twilio_error(401, 20003, "Authenticate")
        if self.headers.get("Content-Type", "").split(";")[0] != "application/x-www-form-urlencoded":
            return self.twilio_error(400, 20001, "Unsupported content type")
        form = {key: values[0] for key, values in parse_qs(raw.decode(), keep_blank_values=True).items()}
        to, sender, text = form.get("To", ""), form.get("From", ""), form.get("Body", "")
        if not E164.match(to):
            return self.twilio_error(400, 21211, f"The 'To' number {to} is not a valid phone number.")
        if not text:
            return self.twilio_error(400, 21604, "A 'Body' parameter is required to send a message.")
        if self.injected_fault():
            return
        sid = "SM" + uuid.uuid4().hex
        self.keep({"api": "twilio", "id": sid, "to": to, "from": sender, "text": text})
        self.answer(201, {"sid": sid, "account_sid": account_sid, "to": to, "from": sender, "body": text,
                          "status": "queued", "num_segments": "1", "direction": "outbound-api",
                          "error_code": None, "error_message": None, "api_version": "2010-04-01",
                          "uri": f"/2010-04-01/Accounts/{account_sid}/Messages/{sid}.json"})

    def webhook(self, raw):
        stamp = self.headers.get("X-Gateway-Timestamp", "")
        signature = self.headers.get("X-Gateway-Signature", "")
        expected = "v1=" + hmac.new(auth_token.encode(), stamp.encode() + b"." + raw, hashlib.sha256).hexdigest()
        if not stamp.isdigit() or abs(time.time() - int(stamp)) > 300 or not hmac.compare_digest(signature, expected):
            return self.answer(401, {"error": "signature"})
        document = json.loads(raw)
        if not E164.match(document.get("to", "")):
            return self.answer(400, {"error": "to"})
        if self.injected_fault():
            return
        self.keep({"api": "webhook", "id": document["id"], "to": document["to"], "from": document["from"],
                   "text": document["text"]})
        self.answer(200, {"accepted": True})


def main():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening {port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
