#!/usr/bin/env python3
"""A TCP proxy that can delay a link, for kernels without `tc netem` (this machine's has no
sch_netem). Each chunk read from either side is forwarded after 200 ms ± 50 ms (uniform) while
slowed; order within a direction is kept (a chunk never overtakes the one before it). SIGUSR1
slows the link, SIGUSR2 makes it normal again. Packet loss is not the proxy's job: the harness
drops packets with nftables (`numgen random`) on the proxy's port, so TCP really retransmits.

Usage: delayproxy.py LISTEN_HOST:PORT TARGET_HOST:PORT [--delay-ms 200] [--jitter-ms 50]"""
import argparse, asyncio, random, signal, time

slowed = False


async def pipe(reader, writer, delay, jitter):
    """Copies one direction; each chunk leaves at max(its own due time, the previous one's)."""
    queue, last_due = asyncio.Queue(), 0.0

    async def sender():
        while True:
            due, chunk = await queue.get()
            if chunk is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(chunk)
            await writer.drain()
        writer.close()

    task = asyncio.create_task(sender())
    try:
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                break
            due = time.monotonic()
            if slowed:
                due += max(0.0, random.uniform(delay - jitter, delay + jitter)) / 1000
            last_due = max(last_due, due)
            queue.put_nowait((last_due, chunk))
    except (ConnectionError, OSError):
        pass
    queue.put_nowait((0, None))
    try:
        await task
    except (ConnectionError, OSError):
        pass


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("listen")
    parser.add_argument("target")
    parser.add_argument("--delay-ms", type=float, default=200)
    parser.add_argument("--jitter-ms", type=float, default=50)
    args = parser.parse_args()
    target_host, target_port = args.target.rsplit(":", 1)

    async def accepted(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host, int(target_port))
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer, args.delay_ms, args.jitter_ms),
                             pipe(server_reader, client_writer, args.delay_ms, args.jitter_ms))

    def slow(on):
        global slowed
        slowed = on
        print(f"delayproxy: {'slowed' if on else 'normal'}", flush=True)

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, slow, True)
    loop.add_signal_handler(signal.SIGUSR2, slow, False)
    host, port = args.listen.rsplit(":", 1)
    server = await asyncio.start_server(accepted, host, int(port))
    print(f"delayproxy: {args.listen} -> {args.target}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
