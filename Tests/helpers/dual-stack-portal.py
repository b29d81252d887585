#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""One port on 127.0.0.1 and on [::1], answering probes differently per family.

usage: dual-stack-portal.py V4MODE V6MODE   (each: online | portal); prints "port N" when ready.
online: 204 No Content. portal: 302 to http://portal.test/login?family=ipv4|ipv6.
Logs "FAMILY PATH" for every request.
"""
import http.server, socket, sys, threading

modes = {"ipv4": sys.argv[1], "ipv6": sys.argv[2]}
lock = threading.Lock()

def handler(family):
    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            with lock:  # one write per line: the two servers' threads must not interleave
                sys.stdout.write(f"{family} {self.path}\n")
                sys.stdout.flush()
            if modes[family] == "online":
                self.send_response(204)
            else:
                self.send_response(302)
                self.send_header("Location", f"http://portal.test/login?family={family}")
            self.send_header("Content-Length", "0")
            self.end_headers()
        def log_message(self, *a):
            pass
    return H

class V6Server(http.server.HTTPServer):
    address_family = socket.AF_INET6

v4 = http.server.HTTPServer(("127.0.0.1", 0), handler("ipv4"))
port = v4.server_address[1]
v6 = V6Server(("::1", port), handler("ipv6"))
for s in (v4, v6):
    threading.Thread(target=s.serve_forever, daemon=True).start()
print("port", port, flush=True)
threading.Event().wait()
