#!/usr/bin/env python3
"""A TCP proxy that can cut a link as a network partition does, for tests without network
namespaces. SIGUSR1 cuts: nothing more is read from either side of any connection, and a new
connection is accepted but not connected onward, so whatever is sent waits unanswered (as packets
that vanish do). SIGUSR2 heals: the held bytes flow on, as TCP's retransmissions would deliver
them. Prints "listening PORT" once it accepts connections.

Usage: cutproxy.py TARGET_HOST:PORT [--port 0]"""
import argparse, asyncio, signal

healed = asyncio.Event()


async def pipe(reader, writer):
    try:
        while True:
            await healed.wait()
            chunk = await reader.read(65536)
            if not chunk:
                break
            await healed.wait()
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("target")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    host, port = args.target.rsplit(":", 1)
    # A parent may have started us with these signals blocked (a test runner's thread mask).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1, signal.SIGUSR2})
    healed.set()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, healed.clear)
    loop.add_signal_handler(signal.SIGUSR2, healed.set)

    async def accept(client_reader, client_writer):
        await healed.wait()
        try:
            server_reader, server_writer = await asyncio.open_connection(host, int(port))
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer))

    server = await asyncio.start_server(accept, "127.0.0.1", args.port)
    print(f"listening {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
