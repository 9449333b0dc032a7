#!/usr/bin/env python3
"""A fake mini-app platform for the chaos cluster's upstream host: the RAS contract the gateway
calls (`HTTPPlatformClient`), answered from a catalog folder in `Deploy/demo`'s layout, so the
demo tenant pointed at it serves the same mini apps as from its local catalog, but over the
network, where the nemesis can cut it off or kill it.

  GET /host/{P}/miniapps[?miniAppId=]                 the miniapp.json of each (or of one) app
  GET /host/{P}/miniapp/{id}/version/{v}/manifest      {"manifest": [file URLs]} (+ Signature)
  GET /host/{P}/miniapp/{id}/version/{v}/metadata      {"bundleManifest": manifest[.lang].json}
  GET /host/{P}/preview-codes/{code}, GET /keys/{id}   previews/{code}.json, keys/{id}.json
  GET /count                                           requests answered (not part of RAS)

Every call must carry `apiKey: ras-{key}` (the tenant's subscription key), else 401.
Usage: fakeplatform.py HOST PORT CATALOG_FOLDER SUBSCRIPTION_KEY"""
import json, os, re, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

host, port, catalog, key = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
lock, answered = threading.Lock(), [0]


def read(*parts):
    path = os.path.join(catalog, *parts)
    if ".." in parts or not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def apps():
    return [info for name in sorted(os.listdir(catalog)) if (info := read(name, "miniapp.json"))]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = -1
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def answer(self, status, document, headers=()):
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/count":
            return self.answer(200, {"answered": answered[0]})
        if self.headers.get("apiKey") != f"ras-{key}":
            return self.answer(401, {"code": 401, "message": "invalid apiKey"})
        with lock:
            answered[0] += 1
        if re.fullmatch(r"/host/[^/]+/miniapps(/preview)?", url.path):
            found = apps()
            if "miniAppId" in query:
                found = [info for info in found if info.get("id") == query["miniAppId"]]
            return self.answer(200, found)
        match = re.fullmatch(r"/host/[^/]+/miniapp/([^/]+)/version/([^/]+)(?:/preview)?/(manifest|metadata)", url.path)
        if match:
            app, version, what = match.groups()
            if read(app, version, "manifest.json") is None:
                return self.answer(404, {"code": 404, "message": "not found"})
            if what == "metadata":
                lang = query.get("lang")
                manifest = (lang and read(app, version, f"manifest.{lang}.json")) or read(app, version, "manifest.json")
                return self.answer(200, {"bundleManifest": manifest})
            files = sorted(os.listdir(os.path.join(catalog, app, version, "files")))
            base = f"http://{self.headers.get('Host')}/files/{app}/{version}/"
            signed = read(app, version, "signature.json") or {}
            headers = [("Signature", signed["signature"])] if "signature" in signed else []
            return self.answer(200, {"manifest": [base + name for name in files],
                                     "publicKeyId": signed.get("publicKeyId")}, headers)
        match = re.fullmatch(r"/host/[^/]+/preview-codes/([^/]+)", url.path) or re.fullmatch(r"/keys/([^/]+)", url.path)
        if match:
            found = read("previews" if "preview-codes" in url.path else "keys", match.group(1) + ".json")
            return self.answer(200, found) if found else self.answer(404, {"code": 404, "message": "not found"})
        self.answer(404, {"code": 404, "message": "not found"})


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer((host, port), Handler).serve_forever()
