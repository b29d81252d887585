#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""A DNS server stand-in for the link-DNS tests: UDP and TCP on 127.0.0.1, one port.

usage: dns-standin.py MODE   (prints "port N" when ready; logs "udp TYPE" / "tcp TYPE" per question)
  normal      A -> 10.9.8.7, AAAA -> fd00::7
  wrong-id    answers with another message ID (and nothing else)
  wrong-name  answers a different question name (and nothing else)
  truncated   over UDP: TC=1 and no answer; over TCP: the full answer
  loopback    A -> 127.0.0.1, AAAA -> ::1
"""
import socket, struct, sys, threading

mode = sys.argv[1]
lock = threading.Lock()  # one line at a time from the UDP and TCP threads

def parse(q):
    qid, flags, qd = struct.unpack("!HHH", q[:6])
    i, labels = 12, []
    while q[i]:
        n = q[i]; labels.append(q[i + 1:i + 1 + n]); i += 1 + n
    qname_end = i + 1
    qtype, qclass = struct.unpack("!HH", q[qname_end:qname_end + 4])
    return qid, labels, qtype, q[12:qname_end + 4]

def answer(q, over_tcp):
    qid, labels, qtype, question = parse(q)
    name = b"".join(bytes([len(l)]) + l for l in labels) + b"\0"
    if mode == "wrong-id":
        qid ^= 0x5555
    if mode == "wrong-name":
        question = b"\x05other\x07example\0" + question[-4:]
        name = b"\x05other\x07example\0"
    rdata = None
    v4, v6 = ("127.0.0.1", "::1") if mode == "loopback" else ("10.9.8.7", "fd00::7")
    if qtype == 1:
        rdata = socket.inet_aton(v4)
    elif qtype == 28:
        rdata = socket.inet_pton(socket.AF_INET6, v6)
    if mode == "truncated" and not over_tcp:
        return struct.pack("!HHHHHH", qid, 0x8380, 1, 0, 0, 0) + question
    if rdata is None:
        return struct.pack("!HHHHHH", qid, 0x8180, 1, 0, 0, 0) + question
    rr = name + struct.pack("!HHIH", qtype, 1, 60, len(rdata)) + rdata
    return struct.pack("!HHHHHH", qid, 0x8180, 1, 1, 0, 0) + question + rr

# One port for UDP and TCP: the kernel picks a free UDP port, which another test may hold for
# TCP; then try another.
for attempt in range(100):
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    port = udp.getsockname()[1]
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        tcp.bind(("127.0.0.1", port))
        break
    except OSError:
        udp.close()
        tcp.close()
else:
    sys.exit("no port free for both UDP and TCP")
tcp.listen(8)

def serve_tcp():
    while True:
        c, _ = tcp.accept()
        try:
            while True:
                head = c.recv(2)
                if len(head) < 2:
                    break
                (n,) = struct.unpack("!H", head)
                q = b""
                while len(q) < n:
                    q += c.recv(n - len(q))
                with lock:
                    print("tcp", parse(q)[2], flush=True)
                a = answer(q, True)
                c.sendall(struct.pack("!H", len(a)) + a)
        finally:
            c.close()

threading.Thread(target=serve_tcp, daemon=True).start()
print("port", port, flush=True)
while True:
    q, peer = udp.recvfrom(1500)
    with lock:
        print("udp", parse(q)[2], flush=True)
    udp.sendto(answer(q, False), peer)
