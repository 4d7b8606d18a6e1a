#!/usr/bin/env python3
"""Serve the looplab repo root on 127.0.0.1 for the page and the browser tests (stdlib only).

    python3 web/tools/serve.py [--port 8080] [--page dist/] [--verbose]   # --port 0: a free port

Prints `PORT <n>` and the page URL on stdout, then serves until interrupted. `/` redirects to the
page: `/web/` (the development tree, as the tests load it) or, with `--page dist/` (`make serve`),
the bundled, precompressed page `make dist` writes. Every response carries the headers the page is meant to run under:
  * COOP + COEP (+ CORP): cross-origin isolation, which gives a 5 us clock instead of 100 us;
  * a strict CSP: no eval, no inline scripts; 'wasm-unsafe-eval' lets WebAssembly compile;
  * Cache-Control: no-cache, so a rebuilt module is always picked up.
A file with a precompressed copy next to it (`make dist` writes `<file>.br` and `<file>.gz`) is sent
as that copy, with Content-Encoding and `Vary: Accept-Encoding`, when the request accepts it and the
copy is not older than the file; everything else (the development tree) is sent as it is.
"""
import argparse
import http.server
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo root

HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Content-Security-Policy": "; ".join([
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "worker-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
    ]),
    "Cache-Control": "no-cache",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the page loads a dozen files
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
        ".css": "text/css",
        ".svg": "image/svg+xml",
    }
    verbose = False
    # Preferred first: brotli is about a quarter smaller than gzip -9 on the wasm.
    ENCODINGS = (("br", ".br"), ("gzip", ".gz"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=ROOT, **kwargs)

    page = "web/"

    def do_GET(self):
        if self.path == "/" or self.path.startswith("/?"):
            self.send_response(302)
            self.send_header("Location", "/" + self.page + self.path[1:])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def do_HEAD(self):
        if self.path == "/" or self.path.startswith("/?"):
            return self.do_GET()
        super().do_HEAD()

    def accepted_encodings(self):
        """The content codings the request's Accept-Encoding allows (q=0 refuses one)."""
        accepted = set()
        for item in self.headers.get("Accept-Encoding", "").split(","):
            name, _, q = item.partition(";")
            try:
                weight = float(q.strip().removeprefix("q=")) if q.strip() else 1.0
            except ValueError:
                weight = 0.0
            if name.strip() and weight > 0:
                accepted.add(name.strip().lower())
        return accepted

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path) and self.path.partition("?")[0].endswith("/"):
            path = os.path.join(path, "index.html")
        if os.path.isfile(path):
            accepted = self.accepted_encodings()
            for encoding, suffix in self.ENCODINGS:
                copy = path + suffix
                if not os.path.isfile(copy) or os.stat(copy).st_mtime < os.stat(path).st_mtime:
                    continue
                self.vary = True
                if encoding not in accepted and "*" not in accepted:
                    continue
                f = open(copy, "rb")
                self.send_response(200)
                self.send_header("Content-Type", self.guess_type(path))
                self.send_header("Content-Encoding", encoding)
                self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
                self.send_header("Last-Modified", self.date_time_string(os.stat(path).st_mtime))
                self.end_headers()
                return f
        return super().send_head()

    def end_headers(self):
        for name, value in HEADERS.items():
            self.send_header(name, value)
        if self.__dict__.pop("vary", False):   # set by send_head for this response only
            self.send_header("Vary", "Accept-Encoding")
        super().end_headers()

    def log_message(self, format, *args):
        if self.verbose:
            super().log_message(format, *args)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # A browser that closes a connection early (BrokenPipe/ConnectionReset) is not an error.
        if Handler.verbose:
            super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8080, help="port (0 picks a free one)")
    parser.add_argument("--page", default="web/", help="the folder / redirects to (web/ or dist/)")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args()
    Handler.verbose = args.verbose
    Handler.page = args.page.strip("/") + "/"

    with Server(("127.0.0.1", args.port), Handler) as server:
        port = server.server_address[1]
        print(f"PORT {port}", flush=True)
        print(f"http://127.0.0.1:{port}/{Handler.page}", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
