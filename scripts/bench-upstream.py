#!/usr/bin/env python3
"""A fake mini-app platform for `make bench`: every answer is delayed DELAY_MS; GET /count
returns how many requests each path got. Usage: bench-upstream.py PORT DELAY_MS"""
import json, sys, threading, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

port, delay = int(sys.argv[1]), int(sys.argv[2]) / 1000.0
counts, lock = {}, threading.Lock()
APPS = [{"id": f"app{i}", "displayName": f"App {i}", "version": {"versionTag": "1.0", "versionId": "v1"}} for i in range(3)]
META = {"bundleManifest": {"reqPermissions": [{"name": "rakuten.miniapp.user.USER_NAME", "reason": "bench"}],
                           "optPermissions": [], "accessTokenPermissions": [], "customMetaData": {}}}

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # One segment per answer, sent at once: with Nagle on and the body written after the
    # headers, a reused connection waits for the gateway's delayed ACK (~40 ms).
    wbufsize = -1
    disable_nagle_algorithm = True
    def log_message(self, *args): pass
    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/count":
            with lock: body = json.dumps(counts).encode()
        else:
            with lock: counts[path] = counts.get(path, 0) + 1
            time.sleep(delay)
            body = json.dumps(META if path.endswith("/metadata") else APPS).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.request_queue_size = 2048
ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
