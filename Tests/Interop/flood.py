"""Half-open connection flood against a gateway, with a probe from another address.

Opens --connections connections spread over --sources, each sending half a request head and
waiting; a connection the gateway closes is opened again after --backoff seconds (an
attacker who reconnects). Meanwhile a probe from 127.0.0.1 opens a fresh connection once a
second and sends a whole request. Prints one JSON line: the probe's answers (status and
seconds, or an error) and the most flood connections held at once. Bounded: it stops after
--seconds, only ever connects to 127.0.0.1.
"""
import argparse
import asyncio
import json
import resource
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

    async def probe() -> dict:
        started = time.monotonic()
        writer = None
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", args.port, local_addr=("127.0.0.1", 0)), 5)
            writer.write(f"GET {args.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
            await writer.drain()
            line = await asyncio.wait_for(reader.readline(), 5)
            status = int(line.split()[1]) if line.startswith(b"HTTP/1.1 ") else 0
            return {"status": status, "seconds": round(time.monotonic() - started, 3)}
        except (OSError, asyncio.TimeoutError, ValueError, IndexError) as error:
            return {"status": 0, "seconds": round(time.monotonic() - started, 3), "error": repr(error)}
        finally:
            if writer is not None:
                writer.close()

    tasks = [asyncio.create_task(attacker(sources[index % len(sources)])) for index in range(args.connections)]
    await asyncio.sleep(min(5, args.seconds / 6))  # let the flood build up
    probes = []
    while time.monotonic() < deadline - 1:
        tick = time.monotonic()
        probes.append(await probe())
        await asyncio.sleep(max(0, 1 - (time.monotonic() - tick)))
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps({"probes": probes, "most_held": most_held, "opened": opened}))


asyncio.run(main())
