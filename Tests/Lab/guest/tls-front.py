"""The AP side's TLS terminator for the RFC 8908 API (run in the "ap" namespace).

    tls-front.py LISTEN_IP PORT UPSTREAM_IP:PORT CERT_AND_KEY_PEM

Like a hotspot's real front end it tells the portal who the client is: each request's head gets
`X-Forwarded-For: CLIENT` (hotspot-portal-sim --trusted-proxy believes it) and `Connection: close`,
so every upstream connection carries exactly one request whose client is known. socat cannot do
this, and without it the portal would sign in the front's own address instead of the client's.
"""

import socket
import ssl
import sys
import threading

MAX_HEAD = 64 * 1024


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(context, raw, peer, upstream):
    raw.settimeout(30)
    try:
        client = context.wrap_socket(raw, server_side=True)
        head = b""
        while b"\r\n\r\n" not in head:
            data = client.recv(4096)
            if not data or len(head) > MAX_HEAD:
                return
            head += data
        head, rest = head.split(b"\r\n\r\n", 1)
        lines = [line for line in head.split(b"\r\n")
                 if not line.lower().startswith((b"x-forwarded-for:", b"connection:", b"keep-alive:"))]
        lines += [b"X-Forwarded-For: " + peer.encode(), b"Connection: close"]
        server = socket.create_connection(upstream, timeout=30)
        server.sendall(b"\r\n".join(lines) + b"\r\n\r\n" + rest)
        threading.Thread(target=pipe, args=(client, server), daemon=True).start()
        pipe(server, client)
        server.close()
    except (OSError, ssl.SSLError):
        pass
    finally:
        raw.close()


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
