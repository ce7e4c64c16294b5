#!/usr/bin/env python3
"""A git server over HTTP with Basic authentication, for the CLI tests (GitCloneTests).

    git_http_server.py PROJECT_ROOT USER PASSWORD PORT_FILE

Serves the repositories in PROJECT_ROOT with git's own smart-HTTP CGI program,
/usr/lib/git-core/git-http-backend, on 127.0.0.1 (a free port, written to PORT_FILE once it
listens). Every request without `Authorization: Basic base64(USER:PASSWORD)` gets 401 with a
`WWW-Authenticate: Basic` challenge, as a real server asks. Each request is logged to stderr as
`METHOD PATH STATUS user=<name or ->`. The test kills it; it also exits by itself after 300 seconds,
so it never outlives a test that could not.
"""
import base64
import os
import subprocess
import sys
import threading
from wsgiref.simple_server import WSGIRequestHandler, make_server

BACKEND = "/usr/lib/git-core/git-http-backend"


def main():
    root, user, password, port_file = sys.argv[1:5]
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    def app(environ, start_response):
        given = environ.get("HTTP_AUTHORIZATION", "")
        if given != expected:
            log(environ, 401, "-")
            start_response("401 Unauthorized", [("WWW-Authenticate", 'Basic realm="git"'), ("Content-Type", "text/plain")])
            return [b"authentication required\n"]
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        cgi = {
            "PATH": "/usr/bin:/bin", "GIT_PROJECT_ROOT": root, "GIT_HTTP_EXPORT_ALL": "1", "REMOTE_USER": user,
            "REQUEST_METHOD": environ["REQUEST_METHOD"], "PATH_INFO": environ.get("PATH_INFO", ""),
            "QUERY_STRING": environ.get("QUERY_STRING", ""), "CONTENT_TYPE": environ.get("CONTENT_TYPE", ""),
            "CONTENT_LENGTH": str(len(body)), "GATEWAY_INTERFACE": "CGI/1.1", "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
        }
        if environ.get("HTTP_GIT_PROTOCOL"):
            cgi["GIT_PROTOCOL"] = environ["HTTP_GIT_PROTOCOL"]
        output = subprocess.run([BACKEND], input=body, env=cgi, capture_output=True, check=False).stdout
        head, _, content = output.partition(b"\r\n\r\n")
        if not content and b"\n\n" in output:
            head, _, content = output.partition(b"\n\n")
        status = "200 OK"
        headers = []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = value.strip()
            elif name:
                headers.append((name, value.strip()))
        log(environ, int(status.split()[0]), user)
        start_response(status, headers)
        return [content]

    def log(environ, status, who):
        sys.stderr.write(f"{environ['REQUEST_METHOD']} {environ.get('PATH_INFO', '')} {status} user={who}\n")
        sys.stderr.flush()

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    server = make_server("127.0.0.1", 0, app, handler_class=QuietHandler)
    threading.Timer(300, lambda: os._exit(0)).start()
    with open(port_file + ".tmp", "w") as f:
        f.write(f"{server.server_port}\n")
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
