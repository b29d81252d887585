# SPDX-License-Identifier: Apache-2.0
"""The AP side's TLS terminator for the RFC 8908 API (run in the "ap" namespace).

    tls-front.py LISTEN_IP PORT UPSTREAM_IP:PORT CERT_AND_KEY_PEM

Like a hotspot's real front end it tells the portal who the client is: each request's head gets
`X-Forwarded-For: CLIENT` (hotspot-portal-sim --trusted-proxy believes it) and `Connection: close`,
and goes upstream on a connection of its own, so every request's client is known, also when the
client reuses its connection. socat cannot do this, and without it the portal would sign in the
front's own address instead of the client's.
"""

import socket
import ssl
import sys
import threading

MAX_HEAD = 64 * 1024


def read_request(client, buffer):
    """One request (head and Content-Length body) from `client`; (request, rest) or (None, b"")."""
    while b"\r\n\r\n" not in buffer:
        data = client.recv(4096)
        if not data or len(buffer) > MAX_HEAD:
            return None, b""
        buffer += data
    head, rest = buffer.split(b"\r\n\r\n", 1)
    lines = head.split(b"\r\n")
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip() or 0)
    while len(rest) < length:
        data = client.recv(65536)
        if not data:
            return None, b""
        rest += data
    return (lines, rest[:length]), rest[length:]


def serve(context, raw, peer, upstream):
    """Every request on the client's connection goes upstream on a connection of its own, with
    the client named; the answer is relayed until the upstream closes (Connection: close)."""
    raw.settimeout(30)
    try:
        client = context.wrap_socket(raw, server_side=True)
    except (OSError, ssl.SSLError):
        raw.close()
        return
    try:
        buffer = b""
        while True:
            request, buffer = read_request(client, buffer)
            if request is None:
                return
            lines, body = request
            lines = [line for line in lines
                     if not line.lower().startswith((b"x-forwarded-for:", b"connection:", b"keep-alive:"))]
            lines += [b"X-Forwarded-For: " + peer.encode(), b"Connection: close"]
            print(f"{peer}: {lines[0].decode(errors='replace')[:120]}", flush=True)
            with socket.create_connection(upstream, timeout=30) as server:
                server.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + body)
                while True:
                    data = server.recv(65536)
                    if not data:
                        break
                    client.sendall(data)
    except (OSError, ssl.SSLError, ValueError):
        pass
    finally:
        client.close()


def main():
    ip, port, upstream, pem = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    host, _, uport = upstream.rpartition(":")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pem)
    listener = socket.create_server((ip, port), reuse_port=True)
    print(f"tls-front on {ip}:{port} -> {upstream}", flush=True)
    while True:
        raw, addr = listener.accept()
        threading.Thread(target=serve, args=(context, raw, addr[0], (host, int(uport))), daemon=True).start()


if __name__ == "__main__":
    main()
