"""Half-open connection flood against a gateway, with a probe from another address.

Opens --connections connections spread over --sources, each sending half a request head and
waiting; a connection the gateway closes is opened again after --backoff seconds (an
attacker who reconnects). Meanwhile a probe from 127.0.0.1, in a process of its own, opens a
fresh connection once a second and sends a whole request. Prints one JSON line: the probe's answers (status and
seconds, or an error) and the most flood connections held at once. Bounded: it stops after
--seconds, only ever connects to 127.0.0.1.
"""
import argparse
import asyncio
import json
import multiprocessing
import resource
import socket
import time


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--connections", type=int, required=True)
    parser.add_argument("--sources", required=True, help="comma-separated 127.x addresses")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--backoff", type=float, default=0.05)
    parser.add_argument("--path", default="/t/demo/v1/host-config")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    sources = args.sources.split(",")
    deadline = time.monotonic() + args.seconds
    held = 0
    most_held = 0
    opened = 0
    half_head = f"GET {args.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Flood: ".encode()

    async def attacker(source: str) -> None:
        nonlocal held, most_held, opened
        while time.monotonic() < deadline:
            writer = None
            try:
                reader, writer = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", args.port, local_addr=(source, 0)), 2)
                opened += 1
                writer.write(half_head)
                await writer.drain()
                held += 1
                most_held = max(most_held, held)
                try:
                    await asyncio.wait_for(reader.read(1), max(0.01, deadline - time.monotonic()))
                finally:
                    held -= 1
            except (OSError, asyncio.TimeoutError):
                pass
            finally:
                if writer is not None:
                    writer.close()
            await asyncio.sleep(args.backoff)

    # The probe runs in its own process: a client the flood's busy event loop cannot delay.
    results, sink = multiprocessing.Pipe(duplex=False)
    prober = multiprocessing.Process(target=probe, args=(args.port, args.path, min(5, args.seconds / 6), deadline, sink))
    prober.start()
    tasks = [asyncio.create_task(attacker(sources[index % len(sources)])) for index in range(args.connections)]
    await asyncio.sleep(max(0, deadline - time.monotonic()))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    probes = results.recv() if results.poll(10) else []
    prober.join(5)
    print(json.dumps({"probes": probes, "most_held": most_held, "opened": opened}))


def probe(port: int, path: str, warmup: float, deadline: float, sink) -> None:
    """Once a second after `warmup` (the flood builds up), a fresh connection from 127.0.0.1
    and one whole request; sends the list of answers (status, seconds, seconds to connect)."""
    time.sleep(warmup)
    probes = []
    while time.monotonic() < deadline - 1:
        tick = time.monotonic()
        probes.append(probe_once(port, path))
        time.sleep(max(0, 1 - (time.monotonic() - tick)))
    sink.send(probes)


def probe_once(port: int, path: str) -> dict:
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.1", 0)) as connection:
            connected = time.monotonic() - started
            connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            line = connection.makefile("rb").readline()
            status = int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0
            return {"status": status, "seconds": round(time.monotonic() - started, 3), "connect": round(connected, 3)}
    except (OSError, ValueError, IndexError) as error:
        return {"status": 0, "seconds": round(time.monotonic() - started, 3), "error": repr(error)}


asyncio.run(main())
