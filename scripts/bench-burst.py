#!/usr/bin/env python3
"""Fires N concurrent GETs at URL at once (threads released by a barrier); prints status counts.
Usage: bench-burst.py URL N [AUTHORIZATION]"""
import sys, threading, urllib.request, collections
url, n = sys.argv[1], int(sys.argv[2])
headers = {"Authorization": sys.argv[3]} if len(sys.argv) > 3 else {}
barrier, results, lock = threading.Barrier(n), collections.Counter(), threading.Lock()
def run():
    barrier.wait()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r: status = r.status
    except urllib.error.HTTPError as e: status = e.code
    except Exception as e: status = type(e).__name__
    with lock: results[status] += 1
threads = [threading.Thread(target=run) for _ in range(n)]
for t in threads: t.start()
for t in threads: t.join()
print(dict(results))
